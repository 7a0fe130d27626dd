import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { afterEach } from "vitest";
import { cliPath } from "./cli.js";
import { loadedMachineWaitMs } from "./patience.js";

let sessions = 0;

/**
 * `mercury chat` (or another command: `args`) in a real pseudo-terminal (tmux, its own server per
 * session so tests never touch the user's tmux). Waits poll the screen until the text appears,
 * bounded only by the one patience constant (a loaded machine may take seconds).
 */
export class TmuxChat {
  private readonly socket: string;
  private readonly target = "chat";
  /** Where the program writes its exit code as it exits (see exitStatus). */
  private readonly exitFile: string;

  constructor(options: {
    home: string;
    userHome: string;
    cwd: string;
    env: Record<string, string>;
    args?: string[];
  }) {
    sessions += 1;
    this.socket = `mercury-test-${process.pid}-${sessions}`;
    this.exitFile = join(options.userHome, `tmux-exit-${sessions}`);
    const exitRecorder = join(options.userHome, "tmux-exit-recorder.cjs");
    writeFileSync(
      exitRecorder,
      `process.on("exit", (code) => require("node:fs").writeFileSync(process.env.MERCURY_TEST_EXIT_FILE, String(code)));\n`,
    );
    const env = {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: options.userHome,
      MERCURY_HOME: options.home,
      TERM: "xterm-256color",
      MERCURY_TEST_EXIT_FILE: this.exitFile,
      ...options.env,
    };
    this.tmux(
      [
        "new-session",
        "-d",
        "-s",
        this.target,
        "-x",
        "100",
        "-y",
        "40",
        "-c",
        options.cwd,
        process.execPath,
        "--require",
        exitRecorder,
        cliPath,
        ...(options.args ?? ["chat"]),
        // The pane stays after the program exits, so its last screen and exit status can be read.
        ";",
        "set-option",
        "-w",
        "-t",
        this.target,
        "remain-on-exit",
        "on",
      ],
      env,
    );
  }

  private tmux(args: string[], env?: NodeJS.ProcessEnv): string {
    return execFileSync("tmux", ["-L", this.socket, ...args], {
      encoding: "utf8",
      ...(env ? { env } : {}),
    });
  }

  screen(): string {
    return this.tmux(["capture-pane", "-p", "-t", this.target]);
  }

  /** The screen with its colours: SGR escape codes as the terminal received them (`capture-pane -e`). */
  screenWithColors(): string {
    return this.tmux(["capture-pane", "-p", "-e", "-t", this.target]);
  }

  /** The program's exit status once it has exited (128 + n when killed by signal n); null while it runs. */
  exitStatus(): number | null {
    // The program's own record first: tmux (3.3a) can mark a pane dead and never fill in its exit
    // status (seen under load), which left a chat that had exited looking alive to every wait.
    if (existsSync(this.exitFile)) {
      const recorded = readFileSync(this.exitFile, "utf8").trim();
      if (recorded !== "") return Number(recorded);
    }
    const [dead, status, signal] = this.tmux([
      "display-message",
      "-p",
      "-t",
      this.target,
      "#{pane_dead} #{pane_dead_status} #{pane_dead_signal}",
    ])
      .trim()
      .split(" ");
    if (dead !== "1") return null;
    if (status) return Number(status);
    // tmux can mark a pane dead a moment before it records how the program ended: not known yet.
    return signal ? 128 + Number(signal) : null;
  }

  /** Waits for the program to exit and returns its exit status. */
  async waitForExit(what: string): Promise<number> {
    await this.waitFor(() => this.exitStatus() !== null, `${what} to exit`);
    return this.exitStatus() ?? -1;
  }

  /** The pid of the program in the pane (to kill it as a crash would). */
  panePid(): number {
    return Number(this.tmux(["display-message", "-p", "-t", this.target, "#{pane_pid}"]).trim());
  }

  /** Presses a key by tmux's name for it ("C-c", "C-d", "BSpace"). */
  key(name: string): void {
    this.tmux(["send-keys", "-t", this.target, name]);
  }

  /** Types text (literally) without Enter. */
  type(text: string): void {
    this.tmux(["send-keys", "-t", this.target, "-l", text]);
  }

  enter(): void {
    this.tmux(["send-keys", "-t", this.target, "Enter"]);
  }

  /** Pastes as a terminal does: with bracketed-paste markers when the program asked for them. */
  paste(text: string): void {
    this.tmux(["set-buffer", "-b", "test", text]);
    this.tmux(["paste-buffer", "-p", "-b", "test", "-t", this.target]);
  }

  async waitFor(
    test: (screen: string) => boolean,
    what: string,
    capture: () => string = () => this.screen(),
  ): Promise<string> {
    const deadline = Date.now() + loadedMachineWaitMs;
    let last = "";
    while (Date.now() < deadline) {
      last = capture();
      if (test(last)) return last;
      await delay(50);
    }
    throw new Error(`the terminal never showed ${what}; last screen:\n${last}`);
  }

  /** Like waitFor, on the screen with its colour codes. */
  waitForColored(test: (screen: string) => boolean, what: string): Promise<string> {
    return this.waitFor(test, what, () => this.screenWithColors());
  }

  close(): void {
    try {
      this.tmux(["kill-server"]);
    } catch (error) {
      // The server is already gone when chat exited and its only session closed.
      if (!String(error).includes("no server running") && !String(error).includes("error connecting"))
        throw error;
    }
  }
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: an SGR code starts with ESC.
const sgrPattern = /\u001b\[([\d;]*)m/g;

/**
 * The foreground colour in effect where `needle` first appears on a screen captured with
 * `capture-pane -e` (31 red, 32 green, 33 yellow, 90 grey; null for the default). tmux sends a code
 * only when the colour changes, so a line may carry on the colour of the line before it: the codes
 * are followed from the start of the screen, not read from the line alone.
 */
export function colourAt(captured: string, needle: string): number | null {
  const index = captured.indexOf(needle);
  if (index < 0) throw new Error(`"${needle}" is not on the screen:\n${captured}`);
  let foreground: number | null = null;
  for (const match of captured.slice(0, index).matchAll(sgrPattern)) {
    const codes = (match[1] || "0").split(";").map(Number);
    for (let position = 0; position < codes.length; position++) {
      const code = codes[position] ?? 0;
      if (code === 0 || code === 39) foreground = null;
      else if ((code >= 30 && code <= 37) || (code >= 90 && code <= 97)) foreground = code;
      else if (code === 38 || code === 48) position += codes[position + 1] === 5 ? 2 : 4;
    }
  }
  return foreground;
}

/**
 * A `TmuxChat` factory for one test file: every chat it opens is closed after each test (the
 * afterEach both the in-process and the attached chat tests need).
 */
export function useTmuxChats(): (options: ConstructorParameters<typeof TmuxChat>[0]) => TmuxChat {
  const open: TmuxChat[] = [];
  afterEach(() => {
    for (const chat of open.splice(0)) chat.close();
  });
  return (options) => {
    const chat = new TmuxChat(options);
    open.push(chat);
    return chat;
  };
}

/** The user messages of a chat-completions request body the fake model server recorded. */
export function userMessages(body: unknown): unknown[] {
  return (body as { messages: { role: string; content: unknown }[] }).messages
    .filter((message) => message.role === "user")
    .map((message) => message.content);
}

import { execFileSync } from "node:child_process";
import { setTimeout as delay } from "node:timers/promises";
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

  constructor(options: {
    home: string;
    userHome: string;
    cwd: string;
    env: Record<string, string>;
    args?: string[];
  }) {
    sessions += 1;
    this.socket = `mercury-test-${process.pid}-${sessions}`;
    const env = {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: options.userHome,
      MERCURY_HOME: options.home,
      TERM: "xterm-256color",
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
        cliPath,
        ...(options.args ?? ["chat"]),
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

export function tmuxAvailable(): boolean {
  try {
    execFileSync("tmux", ["-V"], { encoding: "utf8" });
    return true;
  } catch {
    return false;
  }
}

/** The escape code that starts a colour in `capture-pane -e` output: 31 red, 32 green, 33 yellow. */
export const sgr = (code: number): string => `\u001b[${code}m`;

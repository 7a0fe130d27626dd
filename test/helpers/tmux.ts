import { execFileSync } from "node:child_process";
import { setTimeout as delay } from "node:timers/promises";
import { cliPath } from "./cli.js";

let sessions = 0;

/**
 * `mercury chat` in a real pseudo-terminal (tmux, its own server per session so tests never touch
 * the user's tmux). Waits poll the screen until the text appears, bounded by a number of looks.
 */
export class TmuxChat {
  private readonly socket: string;
  private readonly target = "chat";

  constructor(options: { home: string; userHome: string; cwd: string; env: Record<string, string> }) {
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
        "chat",
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

  async waitFor(test: (screen: string) => boolean, what: string, looks = 2000): Promise<string> {
    let last = "";
    for (let look = 0; look < looks; look++) {
      last = this.screen();
      if (test(last)) return last;
      await delay(50);
    }
    throw new Error(`the terminal never showed ${what}; last screen:\n${last}`);
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

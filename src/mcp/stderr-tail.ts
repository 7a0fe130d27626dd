import type { Stream } from "node:stream";
import { plainServerText } from "./tool-names.js";

/** Characters of a server's stderr kept: enough for the last few lines, never the whole stream. */
export const stderrTailCharacters = 2048;

/**
 * The end of a stdio server's stderr, so that "the server exited" can say why (the sandbox's disk
 * watcher writes its reason there, prefixed `mercury:`). The stream is always drained (a server
 * writing a lot to stderr must not block on a full pipe); only a bounded tail is kept.
 */
export class StderrTail {
  private tail = "";

  attach(stream: Stream | null): void {
    stream?.on("data", (chunk: Buffer | string) => {
      this.tail = (this.tail + chunk.toString()).slice(-stderrTailCharacters);
    });
  }

  /** Forgets what an earlier run of the server wrote (called at each start). */
  clear(): void {
    this.tail = "";
  }

  /**
   * Why the server stopped, in its own last words: Mercury's own `mercury:` lines when there are
   * any (the sandbox's reason), else the last lines. Control characters are removed (the text is
   * shown in a terminal) and `scrub` removes credentials. Empty when the server wrote nothing.
   */
  reason(scrub: (text: string) => string): string {
    const lines = plainServerText(this.tail)
      .split("\n")
      .map((line) => line.trim())
      .filter((line) => line !== "");
    const mercury = lines.filter((line) => line.startsWith("mercury:"));
    const chosen = mercury.length > 0 ? mercury.slice(-2) : lines.slice(-3);
    return scrub(chosen.join(" | ")).slice(-600);
  }
}

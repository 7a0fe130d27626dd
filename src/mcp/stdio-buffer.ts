import type { JSONRPCMessage } from "@modelcontextprotocol/client";

/** One message (one line) from a stdio server at most: the SDK's own default. */
export const maxStdioMessageBytes = 10 * 1024 * 1024;

/**
 * Newline framing for a stdio server's output in linear time. The SDK's buffer joins every chunk to
 * everything before it, so a 10 MB line read in small pipe chunks costs gigabytes of copying and
 * blocks the daemon's event loop for seconds: a server could freeze Mercury just by answering. Same
 * interface and limit message as the SDK's (a line over the limit clears the buffer and throws).
 */
export class LinearReadBuffer {
  private parts: Buffer[] = [];
  private size = 0;
  private lines: string[] = [];

  constructor(
    private readonly deserialize: (line: string) => JSONRPCMessage,
    private readonly max = maxStdioMessageBytes,
  ) {}

  append(chunk: Buffer): void {
    let start = 0;
    for (;;) {
      const newline = chunk.indexOf(0x0a, start);
      const end = newline === -1 ? chunk.length : newline;
      if (this.size + (end - start) > this.max) {
        this.clear();
        throw new Error(`ReadBuffer exceeded maximum size of ${this.max} bytes`);
      }
      if (end > start) {
        this.parts.push(chunk.subarray(start, end));
        this.size += end - start;
      }
      if (newline === -1) return;
      this.lines.push(Buffer.concat(this.parts).toString("utf8").replace(/\r$/, ""));
      this.parts = [];
      this.size = 0;
      start = newline + 1;
    }
  }

  /** The next message; lines that are not JSON are skipped, as the SDK does. */
  readMessage(): JSONRPCMessage | null {
    for (let line = this.lines.shift(); line !== undefined; line = this.lines.shift()) {
      try {
        return this.deserialize(line);
      } catch (error) {
        if (error instanceof SyntaxError) continue;
        throw error;
      }
    }
    return null;
  }

  clear(): void {
    this.parts = [];
    this.size = 0;
    this.lines = [];
  }
}

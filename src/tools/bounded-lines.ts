import { createReadStream } from "node:fs";

export interface BoundedLine {
  text: string;
  /** The line was longer than the cap: `text` holds its beginning only. */
  cut: boolean;
}

/**
 * The lines of a file, streamed as bytes, each kept only up to `maxLineBytes`: a file of any shape
 * (one 600 MB line, say) costs at most one read chunk plus one capped line of memory. readline, by
 * contrast, builds every line as a whole string first and throws "Invalid string length" past V8's
 * limit. "\n" and "\r\n" end lines.
 */
export async function* boundedLines(
  path: string,
  signal: AbortSignal,
  maxLineBytes: number,
): AsyncGenerator<BoundedLine> {
  const stream = createReadStream(path, { signal, highWaterMark: 64 * 1024 });
  let parts: Buffer[] = [];
  let kept = 0;
  let cut = false;
  let pending = false;
  const take = (piece: Buffer) => {
    pending = true;
    const room = maxLineBytes - kept;
    if (room <= 0) {
      if (piece.length > 0) cut = true;
      return;
    }
    const part = Buffer.from(piece.subarray(0, room));
    parts.push(part);
    kept += part.length;
    if (piece.length > room) cut = true;
  };
  const finish = (): BoundedLine => {
    let bytes = Buffer.concat(parts, kept);
    if (!cut && bytes.at(-1) === 0x0d) bytes = bytes.subarray(0, -1);
    const line = { text: bytes.toString("utf8"), cut };
    parts = [];
    kept = 0;
    cut = false;
    pending = false;
    return line;
  };
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    let from = 0;
    while (from < chunk.length) {
      const newline = chunk.indexOf(0x0a, from);
      if (newline === -1) {
        take(chunk.subarray(from));
        break;
      }
      take(chunk.subarray(from, newline));
      yield finish();
      from = newline + 1;
    }
  }
  if (pending) yield finish();
}

import { constants } from "node:fs";
import { open, stat } from "node:fs/promises";
import { z } from "zod";
import { abortedResult, authorizePath, describeFsError, openVerified } from "./authorize-path.js";
import { boundedLines } from "./bounded-lines.js";
import type { ToolDefinition, ToolResult } from "./types.js";

export const READ_MAX_LINES = 2000;
export const READ_MAX_CHARS = 60_000;
export const READ_MAX_LINE_CHARS = 2000;
/** Above this size the file is not read to the end just to count its lines. */
export const READ_FULL_SCAN_BYTES = 50 * 1024 * 1024;

const inputSchema = z
  .object({
    path: z.string().min(1).describe("File to read, absolute or relative to the working directory."),
    startLine: z.number().int().min(1).optional().describe("First line to return (1-based)."),
    endLine: z.number().int().min(1).optional().describe("Last line to return (inclusive)."),
  })
  .refine((input) => input.endLine === undefined || input.endLine >= (input.startLine ?? 1), {
    message: "endLine must be greater than or equal to startLine",
  });

export type ReadFileInput = z.infer<typeof inputSchema>;

export const readFileTool: ToolDefinition<ReadFileInput> = {
  name: "read_file",
  description:
    `Read a text file, each line prefixed with its line number and a tab. Use startLine/endLine for a range. ` +
    `At most ${READ_MAX_LINES} lines or ${READ_MAX_CHARS} characters are returned per call; longer output keeps ` +
    `the first and last lines and says which lines were omitted. Lines longer than ${READ_MAX_LINE_CHARS} ` +
    `characters are cut. Binary files are refused.`,
  inputSchema,
  mutating: false,
  async execute(input, context) {
    const access = await authorizePath(context, input.path, "read");
    if (!access.ok) return access;
    try {
      // Opened once and proven to be the checked file (openVerified); every read below goes through
      // /proc/self/fd/N, which reopens that same file, never the name a racing command can swap.
      // O_NONBLOCK: opening a FIFO must not hang (it is refused below).
      const handle = await openVerified(access, constants.O_RDONLY | constants.O_NONBLOCK);
      try {
        const opened = process.platform === "linux" ? `/proc/self/fd/${handle.fd}` : access.path;
        return await readOpened(opened, access.path, input, context.signal);
      } finally {
        await handle.close();
      }
    } catch (error) {
      if (context.signal.aborted) return abortedResult();
      return { ok: false, error: describeFsError(error, access.path) };
    }
  },
};

async function readOpened(
  opened: string,
  path: string,
  input: ReadFileInput,
  signal: AbortSignal,
): Promise<ToolResult> {
  const info = await stat(opened);
  if (info.isDirectory()) return { ok: false, error: `${path} is a directory. Use list_dir instead.` };
  // A FIFO would block forever and a device can be endless: only regular files are read.
  if (!info.isFile()) {
    return { ok: false, error: `${path} is not a regular file (device, FIFO or socket).` };
  }
  if (await looksBinary(opened)) {
    return {
      ok: false,
      error: `${path} looks like a binary file (it contains NUL bytes); not shown.`,
    };
  }
  return await readRange(opened, input, signal, info.size, path);
}

async function looksBinary(path: string): Promise<boolean> {
  const handle = await open(path, "r");
  try {
    const buffer = Buffer.alloc(8192);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    return buffer.subarray(0, bytesRead).includes(0);
  } finally {
    await handle.close();
  }
}

async function readRange(
  path: string,
  input: ReadFileInput,
  signal: AbortSignal,
  size: number,
  /** The name shown to the model (`path` may be /proc/self/fd/N). */
  displayed: string,
): Promise<ToolResult> {
  const start = input.startLine ?? 1;
  const huge = size > READ_FULL_SCAN_BYTES;
  // A huge file is read only as far as one page of the range; its total line count stays unknown.
  const end = Math.min(
    input.endLine ?? Number.POSITIVE_INFINITY,
    huge ? start + READ_MAX_LINES - 1 : Number.POSITIVE_INFINITY,
  );
  const headLimit = Math.floor(READ_MAX_LINES * 0.6);
  const tailLimit = READ_MAX_LINES - headLimit;
  const headCharLimit = Math.floor(READ_MAX_CHARS * 0.6);
  const tailCharLimit = READ_MAX_CHARS - headCharLimit;
  const head: string[] = [];
  let headChars = 0;
  const tail: string[] = [];
  let tailChars = 0;
  let headFull = false;
  let selected = 0;
  let lineNo = 0;

  // Lines are kept only up to 4 bytes per allowed character (UTF-8), never whole (see bounded-lines.ts).
  for await (const raw of boundedLines(path, signal, READ_MAX_LINE_CHARS * 4)) {
    lineNo++;
    if (lineNo > end && huge) break;
    if (lineNo < start || lineNo > end) continue;
    selected++;
    const cut =
      raw.cut || raw.text.length > READ_MAX_LINE_CHARS
        ? `${raw.text.slice(0, READ_MAX_LINE_CHARS)} [line cut]`
        : raw.text;
    const line = `${lineNo}\t${cut}`;
    if (!headFull && head.length < headLimit && headChars + line.length <= headCharLimit) {
      head.push(line);
      headChars += line.length + 1;
      continue;
    }
    headFull = true;
    tail.push(line);
    tailChars += line.length + 1;
    while (tail.length > tailLimit || tailChars > tailCharLimit) {
      const dropped = tail.shift();
      if (dropped === undefined) break;
      tailChars -= dropped.length + 1;
    }
  }
  if (signal.aborted) return abortedResult();
  const total = lineNo;
  if (total > 0 && start > total) {
    return {
      ok: false,
      error: `startLine ${start} is past the end of ${displayed}, which has ${total} lines.`,
    };
  }
  // For a huge file the loop stopped one line past the page: lineNo > end means more follows.
  const more = huge && lineNo > end;
  const last = Math.min(end, more ? end : total);
  const header =
    total === 0
      ? `${displayed} is empty.`
      : huge
        ? `${displayed} (lines ${start}-${last}; the file is ${size} bytes, too large to count its lines)`
        : `${displayed} (lines ${start}-${last} of ${total})`;
  const footer = more
    ? [`[... more lines follow. Use read_file with startLine=${last + 1} to continue ...]`]
    : [];
  const shown = head.length + tail.length;
  if (shown === selected) return { ok: true, output: [header, ...head, ...tail, ...footer].join("\n") };
  const firstOmitted = start + head.length;
  const lastOmitted = last - tail.length;
  const note =
    `[... lines ${firstOmitted}-${lastOmitted} omitted (output limit). ` +
    `Use read_file with startLine=${firstOmitted} and endLine=${Math.min(lastOmitted, firstOmitted + headLimit - 1)} to read them ...]`;
  return { ok: true, output: [header, ...head, note, ...tail, ...footer].join("\n") };
}

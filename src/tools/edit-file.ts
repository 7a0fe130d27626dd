import { constants } from "node:fs";
import { type FileHandle, stat } from "node:fs/promises";
import { z } from "zod";
import { abortedResult, authorizePath, describeFsError, openVerified } from "./authorize-path.js";
import { countLines } from "./output-limits.js";
import type { ToolDefinition, ToolResult } from "./types.js";

export const EDIT_MAX_BYTES = 5 * 1024 * 1024;

const inputSchema = z.object({
  path: z.string().min(1).describe("File to edit, absolute or relative to the working directory."),
  oldText: z
    .string()
    .min(1)
    .describe("Exact text to replace, including whitespace; must occur exactly once."),
  newText: z.string().describe("Replacement text."),
  replaceAll: z
    .boolean()
    .optional()
    .describe("Replace every occurrence instead of requiring a unique match."),
});

export type EditFileInput = z.infer<typeof inputSchema>;

export const editFileTool: ToolDefinition<EditFileInput> = {
  name: "edit_file",
  description:
    "Replace an exact piece of text in a file. oldText must match exactly once (whitespace included) unless " +
    "replaceAll is true; when it is missing the error shows the closest lines, when it occurs several times " +
    `the error lists where, so you can add surrounding lines. Files up to ${EDIT_MAX_BYTES} bytes.`,
  inputSchema,
  mutating: true,
  async execute(input, context) {
    if (input.oldText === input.newText) {
      return { ok: false, error: "oldText and newText are identical; there is nothing to change." };
    }
    const access = await authorizePath(context, input.path, "write");
    if (!access.ok) return access;
    const path = access.path;
    try {
      const info = await stat(path);
      if (info.isDirectory()) return { ok: false, error: `${path} is a directory, not a file.` };
      if (!info.isFile())
        return { ok: false, error: `${path} is not a regular file (device, FIFO or socket).` };
      if (info.size > EDIT_MAX_BYTES) {
        return {
          ok: false,
          error: `${path} is ${info.size} bytes, over the ${EDIT_MAX_BYTES}-byte edit limit.`,
        };
      }
      // Read and written through one handle proven to be the checked file (openVerified).
      const handle = await openVerified(access, constants.O_RDWR);
      try {
        return await editThrough(handle, path, input, context.signal);
      } finally {
        await handle.close();
      }
    } catch (error) {
      if (context.signal.aborted) return abortedResult();
      return { ok: false, error: describeFsError(error, path) };
    }
  },
};

async function editThrough(
  handle: FileHandle,
  path: string,
  input: EditFileInput,
  signal: AbortSignal,
): Promise<ToolResult> {
  {
    const original = await handle.readFile({ encoding: "utf8", signal });
    let oldText = input.oldText;
    let newText = input.newText;
    // Models write "\n"; a CRLF file would otherwise never match.
    if (original.includes("\r\n") && !oldText.includes("\r\n")) {
      const crlfOld = oldText.replace(/\n/g, "\r\n");
      if (original.includes(crlfOld)) {
        oldText = crlfOld;
        newText = newText.replace(/\r?\n/g, "\r\n");
      }
    }
    const positions = occurrences(original, oldText);
    if (positions.length === 0) return { ok: false, error: missingMatchMessage(path, original, oldText) };
    if (positions.length > 1 && !input.replaceAll) {
      const lines = positions.slice(0, 10).map((at) => lineOf(original, at));
      return {
        ok: false,
        error:
          `oldText occurs ${positions.length} times in ${path} (at lines ${lines.join(", ")}${positions.length > 10 ? ", …" : ""}). ` +
          "Include more surrounding lines in oldText so it matches exactly once, or set replaceAll to true.",
      };
    }
    const updated = input.replaceAll
      ? original.split(oldText).join(newText)
      : original.slice(0, positions[0]) + newText + original.slice((positions[0] ?? 0) + oldText.length);
    // Written at explicit offsets: the handle's position is at the end after the read.
    const data = Buffer.from(updated, "utf8");
    await handle.truncate(0);
    for (let offset = 0; offset < data.length; ) {
      const { bytesWritten } = await handle.write(data, offset, data.length - offset, offset);
      offset += bytesWritten;
    }
    const firstLine = lineOf(original, positions[0] ?? 0);
    const removed = countLines(oldText) * positions.length;
    const added = countLines(newText) * positions.length;
    return {
      ok: true,
      output:
        `Edited ${path}: replaced ${positions.length} occurrence${positions.length > 1 ? "s" : ""} ` +
        `(first at line ${firstLine}; -${removed} +${added} lines). The file now has ${countLines(updated)} lines.`,
    };
  }
}

function occurrences(text: string, needle: string): number[] {
  const found: number[] = [];
  let at = text.indexOf(needle);
  while (at !== -1) {
    found.push(at);
    at = text.indexOf(needle, at + needle.length);
  }
  return found;
}

function lineOf(text: string, index: number): number {
  let line = 1;
  for (let i = 0; i < index; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}

/** Explains a missing match: a whitespace-only difference, or else the lines most like the first line sought. */
function missingMatchMessage(path: string, content: string, oldText: string): string {
  const squash = (s: string) => s.replace(/\s+/g, " ").trim();
  const fileLines = content.split(/\r?\n/);
  const wanted = oldText.split(/\r?\n/).find((line) => line.trim() !== "") ?? oldText;
  let best = -1;
  let bestScore = 0;
  fileLines.forEach((line, index) => {
    const score = similarity(squash(line), squash(wanted));
    if (score > bestScore) {
      bestScore = score;
      best = index;
    }
  });
  const whitespaceOnly = squash(content).includes(squash(oldText));
  const intro = whitespaceOnly
    ? `oldText was not found in ${path} exactly, but it matches if whitespace is ignored: copy the indentation and line breaks exactly as read_file shows them.`
    : `oldText was not found in ${path}.`;
  if (best < 0 || bestScore < 0.3) {
    return `${intro} No similar line exists either; read the file with read_file before editing.`;
  }
  const from = Math.max(0, best - 2);
  const to = Math.min(fileLines.length, best + 3);
  const excerpt = fileLines
    .slice(from, to)
    .map((line, i) => `${from + i + 1}\t${line}`)
    .join("\n");
  return `${intro} The closest lines (around line ${best + 1}) are:\n${excerpt}\nCopy the text exactly from the file and try again.`;
}

/** Dice coefficient over character bigrams: cheap, and good at spotting a line with a small typo. */
function similarity(a: string, b: string): number {
  if (a === b) return a === "" ? 0 : 1;
  if (a.length < 2 || b.length < 2) return 0;
  const grams = new Map<string, number>();
  for (let i = 0; i < a.length - 1; i++) {
    const gram = a.slice(i, i + 2);
    grams.set(gram, (grams.get(gram) ?? 0) + 1);
  }
  let shared = 0;
  for (let i = 0; i < b.length - 1; i++) {
    const gram = b.slice(i, i + 2);
    const count = grams.get(gram) ?? 0;
    if (count > 0) {
      grams.set(gram, count - 1);
      shared++;
    }
  }
  return (2 * shared) / (a.length - 1 + b.length - 1);
}

import { constants, type Stats } from "node:fs";
import { mkdir, stat } from "node:fs/promises";
import { dirname } from "node:path";
import { z } from "zod";
import { abortedResult, authorizePath, describeFsError, openVerified } from "./authorize-path.js";
import { countLines } from "./output-limits.js";
import type { ToolDefinition } from "./types.js";

/** Larger writes are almost always a mistake by the model (e.g. pasting a whole log). */
export const WRITE_MAX_BYTES = 5 * 1024 * 1024;

const inputSchema = z.object({
  path: z.string().min(1).describe("File to write, absolute or relative to the working directory."),
  content: z.string().describe("The complete new content of the file."),
});

export type WriteFileInput = z.infer<typeof inputSchema>;

export const writeFileTool: ToolDefinition<WriteFileInput> = {
  name: "write_file",
  description:
    "Create or overwrite a file with the given content (UTF-8). Missing parent directories are created " +
    `inside the allowed roots. At most ${WRITE_MAX_BYTES} bytes. Replies with the bytes and lines written. ` +
    "For a small change to an existing file prefer edit_file.",
  inputSchema,
  mutating: true,
  async execute(input, context) {
    const bytes = Buffer.byteLength(input.content, "utf8");
    if (bytes > WRITE_MAX_BYTES) {
      return {
        ok: false,
        error: `Refused: ${bytes} bytes is over the ${WRITE_MAX_BYTES}-byte limit of write_file. Write the file in smaller parts or generate it with a command.`,
      };
    }
    const access = await authorizePath(context, input.path, "write");
    if (!access.ok) return access;
    try {
      const existing = await statIfExists(access.path);
      const existed = existing !== null;
      if (existing?.isDirectory()) return { ok: false, error: `${access.path} is a directory, not a file.` };
      // Opening a FIFO for writing blocks until someone reads it; devices are not files to overwrite.
      if (existing && !existing.isFile()) {
        return { ok: false, error: `${access.path} is not a regular file (device, FIFO or socket).` };
      }
      await mkdir(dirname(access.path), { recursive: true });
      // Opened, proven to be the checked file, then truncated (openVerified): never written elsewhere.
      const handle = await openVerified(access, constants.O_WRONLY | constants.O_CREAT);
      try {
        await handle.truncate(0);
        await handle.writeFile(input.content, { encoding: "utf8", signal: context.signal });
      } finally {
        await handle.close();
      }
      const lines = countLines(input.content);
      return {
        ok: true,
        output: `${existed ? "Overwrote" : "Created"} ${access.path}: ${bytes} bytes, ${lines} lines written.`,
      };
    } catch (error) {
      if (context.signal.aborted) return abortedResult();
      return { ok: false, error: describeFsError(error, access.path) };
    }
  },
};

async function statIfExists(path: string): Promise<Stats | null> {
  try {
    return await stat(path);
  } catch (error) {
    if (typeof error === "object" && error !== null && "code" in error && error.code === "ENOENT")
      return null;
    throw error;
  }
}

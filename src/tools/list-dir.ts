import { lstat, readdir, readlink } from "node:fs/promises";
import { join } from "node:path";
import { z } from "zod";
import { abortedResult, authorizePath, describeFsError, walkSkipReason } from "./authorize-path.js";
import type { ToolDefinition } from "./types.js";

export const LIST_MAX_ENTRIES = 500;
/** Listed but never descended into: huge, and rarely what the user means. */
export const SKIPPED_DIRS = new Set(["node_modules", ".git"]);

const inputSchema = z.object({
  path: z.string().min(1).optional().describe("Directory to list; defaults to the working directory."),
  depth: z.number().int().min(1).max(5).optional().describe("How many levels to descend (1-5, default 1)."),
  includeHidden: z.boolean().optional().describe("Include entries whose name starts with a dot."),
});

export type ListDirInput = z.infer<typeof inputSchema>;

export const listDirTool: ToolDefinition<ListDirInput> = {
  name: "list_dir",
  description:
    "List a directory: directories end with '/', files show their size, symlinks their target. " +
    `depth 1-5 descends into subdirectories (never into ${[...SKIPPED_DIRS].join(", ")}). ` +
    `At most ${LIST_MAX_ENTRIES} entries; when cut, list a subdirectory or use search_files. ` +
    "Folders holding secrets (SSH keys, credentials) are shown but not opened.",
  inputSchema,
  mutating: false,
  async execute(input, context) {
    const access = await authorizePath(context, input.path ?? ".", "read");
    if (!access.ok) return access;
    const lines: string[] = [];
    let total = 0;
    const walk = async (dir: string, prefix: string, level: number): Promise<void> => {
      const entries = await readdir(dir, { withFileTypes: true });
      entries.sort((a, b) => a.name.localeCompare(b.name));
      for (const entry of entries) {
        if (context.signal.aborted) return;
        if (!input.includeHidden && entry.name.startsWith(".")) continue;
        total++;
        const full = join(dir, entry.name);
        const shown = lines.length < LIST_MAX_ENTRIES;
        if (entry.isDirectory()) {
          if (!shown) continue;
          const descend = level < (input.depth ?? 1) && !SKIPPED_DIRS.has(entry.name);
          const skip = descend ? walkSkipReason(full, context.home) : null;
          if (skip !== null) {
            lines.push(`${prefix}${entry.name}/ (not listed: ${skip})`);
            continue;
          }
          lines.push(`${prefix}${entry.name}/`);
          if (!descend) continue;
          try {
            await walk(full, `${prefix}${entry.name}/`, level + 1);
          } catch (error) {
            lines.push(`${prefix}${entry.name}/ (not listed: ${describeFsError(error, full)})`);
          }
        } else if (shown) {
          lines.push(await describeEntry(full, `${prefix}${entry.name}`, entry.isSymbolicLink()));
        }
      }
    };
    try {
      const info = await lstat(access.path);
      if (!info.isDirectory()) {
        return { ok: false, error: `${access.path} is not a directory. Use read_file to read a file.` };
      }
      await walk(access.path, "", 1);
    } catch (error) {
      if (context.signal.aborted) return abortedResult();
      return { ok: false, error: describeFsError(error, access.path) };
    }
    if (context.signal.aborted) return abortedResult();
    const header = `${access.path}: ${total} entr${total === 1 ? "y" : "ies"}`;
    if (lines.length === 0) return { ok: true, output: `${header} (empty)` };
    const note =
      total > lines.length
        ? `\n[... ${total - lines.length} more entries not shown. List a subdirectory, lower depth, or use search_files with a glob ...]`
        : "";
    return { ok: true, output: `${header}\n${lines.join("\n")}${note}` };
  },
};

async function describeEntry(full: string, name: string, symlink: boolean): Promise<string> {
  if (symlink) return `${name} -> ${await readlink(full)}`;
  const info = await lstat(full);
  return `${name}  ${formatSize(info.size)}`;
}

export function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

import type { Dirent } from "node:fs";
import { readdir, stat } from "node:fs/promises";
import { join, relative, sep } from "node:path";
import { z } from "zod";
import { abortedResult, authorizePath, describeFsError, walkSkipReason } from "./authorize-path.js";
import { SKIPPED_DIRS } from "./list-dir.js";
import type { ToolDefinition, ToolResult } from "./types.js";

export const SEARCH_DEFAULT_RESULTS = 100;
export const SEARCH_MAX_RESULTS = 1000;
export const SEARCH_MAX_FILE_BYTES = 2 * 1024 * 1024;
const MAX_FILES_VISITED = 20_000;
const MATCH_LINE_CHARS = 300;

const inputSchema = z
  .object({
    path: z.string().min(1).optional().describe("Directory to search; defaults to the working directory."),
    glob: z
      .string()
      .min(1)
      .optional()
      .describe(
        "File name pattern: *, **, ?, [abc], {a,b}. Without '/', matched against the file name only.",
      ),
    pattern: z
      .string()
      .min(1)
      .optional()
      .describe("Text to find inside files (a JavaScript regular expression)."),
    literal: z.boolean().optional().describe("Treat pattern as plain text, not a regular expression."),
    caseSensitive: z.boolean().optional().describe("Default false."),
    includeHidden: z.boolean().optional().describe("Also search dot-files and dot-directories."),
    includeIgnored: z.boolean().optional().describe("Also descend into node_modules and .git."),
    maxResults: z.number().int().min(1).max(SEARCH_MAX_RESULTS).optional(),
  })
  .refine((input) => input.glob !== undefined || input.pattern !== undefined, {
    message: "give a glob (file names), a pattern (file contents), or both",
  });

export type SearchFilesInput = z.infer<typeof inputSchema>;

export interface SearchFilesOptions {
  /** How long the pattern may take on one file before the search stops; default 5 s. */
  perFileTimeoutMs?: number;
}

export function createSearchFilesTool(options: SearchFilesOptions = {}): ToolDefinition<SearchFilesInput> {
  const perFileTimeoutMs = options.perFileTimeoutMs ?? 5_000;
  return {
    name: "search_files",
    description:
      "Find files by name (glob) and/or by content (pattern). Name search lists matching paths; content search " +
      "lists 'path:line: text'. Skips node_modules and .git unless includeIgnored, binary files, and files over " +
      `${SEARCH_MAX_FILE_BYTES} bytes. Returns at most maxResults (default ${SEARCH_DEFAULT_RESULTS}, max ` +
      `${SEARCH_MAX_RESULTS}) results; matched lines are cut to ${MATCH_LINE_CHARS} characters (use read_file for more). ` +
      "Secrets (keys, credentials, .env files) are never searched. A pattern that takes over " +
      `${perFileTimeoutMs} ms on one file stops the search.`,
    inputSchema,
    mutating: false,
    async execute(input, context) {
      let contentRegex: RegExp | undefined;
      if (input.pattern !== undefined) {
        const risk = input.literal ? null : catastrophicRisk(input.pattern);
        if (risk !== null) {
          return {
            ok: false,
            error: `The pattern ${JSON.stringify(input.pattern)} ${risk}, which can take exponential time on some lines. Simplify it, or set literal to true.`,
          };
        }
        const source = input.literal ? escapeRegExp(input.pattern) : input.pattern;
        try {
          contentRegex = new RegExp(source, input.caseSensitive ? "" : "i");
        } catch (error) {
          return {
            ok: false,
            error: `Invalid regular expression ${JSON.stringify(input.pattern)}: ${error instanceof Error ? error.message : String(error)}. Set literal to true to search for plain text.`,
          };
        }
      }
      let nameRegex: RegExp | undefined;
      if (input.glob !== undefined) {
        try {
          nameRegex = globToRegExp(input.glob, !input.caseSensitive);
        } catch (error) {
          return { ok: false, error: error instanceof Error ? error.message : String(error) };
        }
      }
      const access = await authorizePath(context, input.path ?? ".", "read");
      if (!access.ok) return access;
      try {
        const info = await stat(access.path);
        if (!info.isDirectory()) return { ok: false, error: `${access.path} is not a directory.` };
        return await search(
          access.path,
          input,
          nameRegex,
          contentRegex,
          context.signal,
          context.home,
          perFileTimeoutMs,
        );
      } catch (error) {
        if (context.signal.aborted) return abortedResult();
        return { ok: false, error: describeFsError(error, access.path) };
      }
    },
  };
}

export const searchFilesTool = createSearchFilesTool();

async function search(
  root: string,
  input: SearchFilesInput,
  nameRegex: RegExp | undefined,
  contentRegex: RegExp | undefined,
  signal: AbortSignal,
  mercuryHome: string,
  perFileTimeoutMs: number,
): Promise<ToolResult> {
  const limit = input.maxResults ?? SEARCH_DEFAULT_RESULTS;
  const matchBasename = input.glob !== undefined && !input.glob.includes("/");
  const results: string[] = [];
  let capped = false;
  let visited = 0;
  let skippedLarge = 0;
  const unreadable: string[] = [];
  const protectedSkipped: string[] = [];
  const stack = [root];
  // The grep worker (and node:worker_threads) load with the first search, not with the tool list.
  const { GrepWorker, SlowPatternError } = await import("./grep-worker.js");
  const grep = contentRegex
    ? new GrepWorker(contentRegex.source, contentRegex.flags, perFileTimeoutMs)
    : undefined;
  try {
    while (stack.length > 0 && !capped) {
      if (signal.aborted) return abortedResult();
      const dir = stack.pop() as string;
      let entries: Dirent[];
      try {
        entries = await readdir(dir, { withFileTypes: true });
      } catch (error) {
        // The root's own failure is the caller's error; a subdirectory we cannot read is reported, not fatal.
        if (dir === root) throw error;
        unreadable.push(relative(root, dir));
        continue;
      }
      entries.sort((a, b) => b.name.localeCompare(a.name));
      for (const entry of entries) {
        if (!input.includeHidden && entry.name.startsWith(".")) continue;
        const full = join(dir, entry.name);
        // A protected file's name may be listed; its content and a protected folder's entries may not.
        const skip = entry.isDirectory() || contentRegex ? walkSkipReason(full, mercuryHome) : null;
        if (skip !== null) {
          protectedSkipped.push(`${relative(root, full)} (${skip})`);
          continue;
        }
        if (entry.isDirectory()) {
          if (!input.includeIgnored && SKIPPED_DIRS.has(entry.name)) continue;
          stack.push(full);
          continue;
        }
        if (!entry.isFile()) continue;
        visited++;
        if (visited > MAX_FILES_VISITED) {
          capped = true;
          break;
        }
        const rel = relative(root, full).split(sep).join("/");
        if (nameRegex && !nameRegex.test(matchBasename ? entry.name : rel)) continue;
        if (!contentRegex) {
          results.push(rel);
        } else {
          try {
            const size = (await stat(full)).size;
            if (size > SEARCH_MAX_FILE_BYTES) {
              skippedLarge++;
              continue;
            }
            const found = await grep?.grep(full, rel, limit - results.length, signal);
            if (found) results.push(...found.matches);
          } catch (error) {
            if (signal.aborted) return abortedResult();
            if (error instanceof SlowPatternError) return { ok: false, error: error.message };
            unreadable.push(`${rel} (${describeFsError(error, rel)})`);
          }
        }
        if (results.length >= limit) {
          capped = true;
          break;
        }
      }
    }
  } finally {
    await grep?.close();
  }
  if (signal.aborted) return abortedResult();
  const what = contentRegex ? "matching lines" : "matching files";
  const notes: string[] = [];
  if (capped) {
    notes.push(
      `[Stopped after ${results.length} ${what}${visited > MAX_FILES_VISITED ? ` and ${MAX_FILES_VISITED} files` : ""}; more may exist. Narrow the search with path or glob, or raise maxResults.]`,
    );
  }
  if (skippedLarge > 0)
    notes.push(`[${skippedLarge} files over ${SEARCH_MAX_FILE_BYTES} bytes were not searched.]`);
  if (protectedSkipped.length > 0) {
    notes.push(
      `[${protectedSkipped.length} protected paths were not searched: ${protectedSkipped.slice(0, 5).join(", ")}]`,
    );
  }
  if (unreadable.length > 0) {
    notes.push(`[${unreadable.length} paths could not be read: ${unreadable.slice(0, 5).join(", ")}]`);
  }
  const header = `${results.length} ${what} under ${root}`;
  return { ok: true, output: [header, ...results, ...notes].join("\n") };
}

/**
 * Refuses, before any file is read, the usual shapes of exponential backtracking: a repeated group that
 * itself repeats, and backreferences. The worker's time limit catches what this misses.
 */
export function catastrophicRisk(pattern: string): string | null {
  if (/\\[1-9]|\\k</.test(pattern)) return "uses a backreference";
  const groups: { start: number; quantified: boolean }[] = [];
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i];
    if (ch === "\\") {
      i++;
      continue;
    }
    if (ch === "[") {
      // Skip a character class: quantifiers inside it are literal.
      for (i++; i < pattern.length && pattern[i] !== "]"; i++) if (pattern[i] === "\\") i++;
      continue;
    }
    if (ch === "(") groups.push({ start: i, quantified: false });
    else if (ch === ")") {
      const group = groups.pop();
      const next = pattern[i + 1];
      const repeated = next === "*" || next === "+" || next === "{";
      if (group?.quantified && repeated) return "repeats a group that itself repeats";
      const parent = groups.at(-1);
      if (parent && (group?.quantified || repeated)) parent.quantified = true;
    } else if ((ch === "*" || ch === "+" || ch === "{") && groups.length > 0) {
      const top = groups.at(-1);
      if (top) top.quantified = true;
    }
  }
  return null;
}

export function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** Translates a file-name glob into an anchored RegExp. Unbalanced brackets or braces are an error. */
export function globToRegExp(glob: string, ignoreCase: boolean): RegExp {
  let out = "";
  let braceDepth = 0;
  for (let i = 0; i < glob.length; i++) {
    const ch = glob.charAt(i);
    if (ch === "*") {
      if (glob[i + 1] === "*") {
        i++;
        if (glob[i + 1] === "/") {
          i++;
          out += "(?:.*/)?";
        } else {
          out += ".*";
        }
      } else {
        out += "[^/]*";
      }
    } else if (ch === "?") {
      out += "[^/]";
    } else if (ch === "[") {
      const close = glob.indexOf("]", i + 1);
      if (close === -1) throw new Error(`Invalid glob ${JSON.stringify(glob)}: '[' without a closing ']'.`);
      let body = glob.slice(i + 1, close);
      if (body.startsWith("!")) body = `^${body.slice(1)}`;
      out += `[${body.replace(/\\/g, "\\\\")}]`;
      i = close;
    } else if (ch === "{") {
      braceDepth++;
      out += "(?:";
    } else if (ch === "}" && braceDepth > 0) {
      braceDepth--;
      out += ")";
    } else if (ch === "," && braceDepth > 0) {
      out += "|";
    } else {
      out += escapeRegExp(ch);
    }
  }
  if (braceDepth !== 0) throw new Error(`Invalid glob ${JSON.stringify(glob)}: '{' without a closing '}'.`);
  return new RegExp(`^${out}$`, ignoreCase ? "i" : "");
}

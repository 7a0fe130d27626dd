import { closeSync, openSync, readdirSync, readFileSync, readSync, statSync, writeFileSync } from "node:fs";
import { basename, join, resolve } from "node:path";
import type { WordScrubber } from "./forget-words.js";
import { FORGOTTEN } from "./store/redaction.js";

/**
 * Every other file under MERCURY_HOME that can hold a forgotten fact's words — logs (a tool call's
 * arguments), task baselines (snapshots of workspace files), exports, event logs — is rewritten in
 * place without them: the exact texts (memory, versions, quotes, source turns) and the distinctive
 * words (forget-words.ts: every word in a line of a source session, two together elsewhere). The
 * database and its copies are changed through SQLite (forget.ts, forget-copies.ts), binary files are
 * left alone. In place, not renamed: a daemon appending to its log keeps its file.
 */
export function scrubFiles(
  home: string,
  options: {
    needles: readonly string[];
    scrubber: WordScrubber | undefined;
    sessionIds: readonly string[];
    skip: readonly string[];
  },
): { updated: string[]; failed: { path: string; reason: string }[] } {
  const skip = new Set(options.skip.flatMap((path) => sqliteFiles(resolve(path))));
  const exact = exactPattern(options.needles);
  const updated: string[] = [];
  const failed: { path: string; reason: string }[] = [];
  for (const path of filesUnder(home)) {
    if (skip.has(resolve(path)) || /\.db(?:-wal|-shm|-journal)?$/.test(basename(path))) continue;
    try {
      if (isBinary(path)) continue;
      const before = readFileSync(path, "utf8");
      let after = exact ? before.replace(exact, FORGOTTEN) : before;
      if (options.scrubber) {
        const scrubber = options.scrubber;
        after = after
          .split("\n")
          .map((line) =>
            options.sessionIds.some((id) => line.includes(id)) ? scrubber.all(line) : scrubber.together(line),
          )
          .join("\n");
      }
      if (after === before) continue;
      writeFileSync(path, after);
      updated.push(path);
    } catch (error) {
      failed.push({ path, reason: error instanceof Error ? error.message : String(error) });
    }
  }
  return { updated, failed };
}

function sqliteFiles(path: string): string[] {
  return [path, `${path}-wal`, `${path}-shm`, `${path}-journal`];
}

function filesUnder(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) return filesUnder(path);
    return entry.isFile() ? [path] : [];
  });
}

/** A NUL byte in the first 8 KiB: a database, an image, an archive — not text this can rewrite. */
function isBinary(path: string): boolean {
  if (statSync(path).size === 0) return false;
  const handle = openSync(path, "r");
  try {
    const buffer = Buffer.alloc(8192);
    const read = readSync(handle, buffer, 0, buffer.length, 0);
    return buffer.subarray(0, read).includes(0);
  } finally {
    closeSync(handle);
  }
}

/** The exact texts (8+ characters), case-insensitive, also as written inside JSON. */
function exactPattern(needles: readonly string[]): RegExp | undefined {
  const forms = [
    ...new Set(
      needles.flatMap((needle) => {
        const trimmed = needle.trim();
        const json = JSON.stringify(trimmed).slice(1, -1);
        return json === trimmed ? [trimmed] : [trimmed, json];
      }),
    ),
  ].filter((form) => [...form].length >= 8 && form !== FORGOTTEN);
  if (forms.length === 0) return undefined;
  return new RegExp(
    forms
      .map((form) => form.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"))
      .sort((a, b) => b.length - a.length)
      .join("|"),
    "giu",
  );
}

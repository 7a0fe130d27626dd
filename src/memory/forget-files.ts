import {
  closeSync,
  type Dirent,
  ftruncateSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  writeSync,
} from "node:fs";
import { join, resolve, sep } from "node:path";
import { gunzipSync } from "node:zlib";
import type { WordScrubber } from "./forget-words.js";
import { FORGOTTEN } from "./store/redaction.js";

/**
 * Every other file under MERCURY_HOME that can hold a forgotten fact's words — logs (a tool call's
 * arguments), task baselines (snapshots of workspace files), exports, event logs — is rewritten in
 * place without them: the exact texts (memory, versions, quotes, source turns) and the distinctive
 * words (forget-words.ts: every word in a line of a source session, two together elsewhere). The
 * database and its copies are changed through SQLite (forget.ts, forget-copies.ts), binary files are
 * left alone. In place, not renamed: a daemon appending to its log keeps its file.
 *
 * Files under a user folder (`userFolders`: MERCURY_HOME/workspace, where tasks work on the user's own
 * files) are the user's, not Mercury's records: they are never rewritten. One that holds the
 * forgotten text is named in `userFiles`, so the user is told and decides.
 */
export function scrubFiles(
  home: string,
  options: {
    needles: readonly string[];
    scrubber: WordScrubber | undefined;
    sessionIds: readonly string[];
    skip: readonly string[];
    /** Folders of the user's own files: read and reported, never rewritten. */
    userFolders?: readonly string[];
  },
  files: FileCalls = nodeFileCalls,
): {
  updated: string[];
  failed: { path: string; reason: string }[];
  userFiles: string[];
  copiesHolding: string[];
} {
  const skip = new Set(options.skip.flatMap((path) => sqliteFiles(resolve(path))));
  const exact = exactPattern(options.needles);
  const updated: string[] = [];
  const userFiles: string[] = [];
  const copiesHolding: string[] = [];
  const failed: { path: string; reason: string }[] = [];
  const userFolders = (options.userFolders ?? []).map((folder) => resolve(folder));
  const isUsers = (path: string) =>
    userFolders.some((folder) => resolve(path) === folder || resolve(path).startsWith(`${folder}${sep}`));
  for (const path of filesUnder(home, files, failed)) {
    if (skip.has(resolve(path))) continue;
    try {
      // A NUL byte in the first 8 KiB: a database, an image, an archive — not text this can rewrite.
      const head = files.head(path);
      if (head.includes(0) || isGzip(head)) {
        if (holdsText(binaryText(files.bytes(path)), exact, options.scrubber)) copiesHolding.push(path);
        continue;
      }
      const before = files.read(path);
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
      if (isUsers(path)) {
        userFiles.push(path);
        continue;
      }
      files.rewrite(path, after);
      updated.push(path);
    } catch (error) {
      // A log rotated away or a baseline pruned between the listing and here holds nothing any more:
      // there is nothing left to scrub. Any other failure is reported.
      if (vanished(error)) continue;
      failed.push({ path, reason: error instanceof Error ? error.message : String(error) });
    }
  }
  return { updated, failed, userFiles, copiesHolding };
}

function isGzip(head: Buffer): boolean {
  return head.length >= 2 && head[0] === 0x1f && head[1] === 0x8b;
}

/** A binary file's text runs: a gzip archive unpacked first; NUL and other control bytes break lines. */
function binaryText(bytes: Buffer): string {
  const unpacked = isGzip(bytes) ? gunzipSync(bytes) : bytes;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the control bytes are what separate the runs
  return unpacked.toString("utf8").replace(/[\u0000-\u0008\u000b-\u001f]+/g, "\n");
}

/** The same test the rewrite applies: an exact text, or two of the fact's words together. */
function holdsText(text: string, exact: RegExp | undefined, scrubber: WordScrubber | undefined): boolean {
  if (exact) {
    exact.lastIndex = 0;
    if (exact.test(text)) return true;
  }
  return scrubber !== undefined && text.split("\n").some((line) => scrubber.together(line) !== line);
}

function sqliteFiles(path: string): string[] {
  return [path, `${path}-wal`, `${path}-shm`, `${path}-journal`];
}

/** The file-system calls the scrub makes, injectable so a test can make a file vanish mid-walk. */
export interface FileCalls {
  list(directory: string): Dirent[];
  /** The first 8 KiB. */
  head(path: string): Buffer;
  read(path: string): string;
  /** The whole file as bytes (a binary file is only read, never rewritten). */
  bytes(path: string): Buffer;
  /** Rewrites an existing file in place; fails with ENOENT (never recreates it) if it is gone. */
  rewrite(path: string, text: string): void;
}

export const nodeFileCalls: FileCalls = {
  list: (directory) => readdirSync(directory, { withFileTypes: true }),
  head(path) {
    const handle = openSync(path, "r");
    try {
      const buffer = Buffer.alloc(8192);
      return buffer.subarray(0, readSync(handle, buffer, 0, buffer.length, 0));
    } finally {
      closeSync(handle);
    }
  },
  read: (path) => readFileSync(path, "utf8"),
  bytes: (path) => readFileSync(path),
  rewrite(path, text) {
    // "r+" rather than writeFileSync: a file rotated away after it was read is not brought back.
    const handle = openSync(path, "r+");
    try {
      const bytes = Buffer.from(text, "utf8");
      writeSync(handle, bytes, 0, bytes.length, 0);
      ftruncateSync(handle, bytes.length);
    } finally {
      closeSync(handle);
    }
  },
};

function vanished(error: unknown): boolean {
  return error instanceof Error && "code" in error && (error.code === "ENOENT" || error.code === "ENOTDIR");
}

function filesUnder(
  directory: string,
  files: FileCalls,
  failed: { path: string; reason: string }[],
): string[] {
  let entries: Dirent[];
  try {
    entries = files.list(directory);
  } catch (error) {
    // A folder removed during the walk (baseline pruning) has no files left to scrub; one that cannot
    // be read is reported like a file, and the walk goes on with the rest.
    if (!vanished(error))
      failed.push({ path: directory, reason: error instanceof Error ? error.message : String(error) });
    return [];
  }
  return entries.flatMap((entry) => {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) return filesUnder(path, files, failed);
    return entry.isFile() ? [path] : [];
  });
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

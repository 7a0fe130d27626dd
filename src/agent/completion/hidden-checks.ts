import { createHash } from "node:crypto";
import { readFile, stat } from "node:fs/promises";
import { join } from "node:path";
import { type CheckChange, checkFileKind } from "./check-changes.js";
import { type GitContainment, runContainedGit } from "./contained-git.js";
import { skippedDirectories } from "./snapshot.js";

/**
 * Check files git ignores. The change picture is git's, so a runner config or a test the task creates
 * and lists in .gitignore in the same breath is in no diff: a GNUmakefile (read by GNU make before the
 * Makefile) with a `test` target that only echoes "ok" completed a task whose real check failed.
 * The ignored files named like check files (runner configs, Makefiles, tests; never under
 * node_modules or build folders, which hold other projects' and generated copies) are hashed when the
 * judge is fixed and compared at the gate.
 */
export type HiddenChecks = Record<string, string>;

/** Past this many, the rest are not hashed: the record says so and the gate treats it as a change. */
const maxHidden = 500;
const maxHashedBytes = 8 * 1024 * 1024;
const overflow = "(more ignored check files than Mercury hashes)";

export async function ignoredCheckFiles(top: string, containment: GitContainment): Promise<HiddenChecks> {
  const listed = await runContainedGit(["ls-files", "-z", "--others", "--ignored", "--exclude-standard"], {
    top,
    containment,
    timeoutMs: 120_000,
  });
  if (listed.code !== 0) throw new Error(`git ls-files failed: ${listed.stderr.trim()}`);
  const paths = listed.stdout
    .split("\0")
    .filter((path) => path !== "" && !path.split("/").some((part) => skippedDirectories.has(part)))
    .filter((path) => checkFileKind(path) !== null)
    .sort();
  const hashes: HiddenChecks = {};
  for (const path of paths.slice(0, maxHidden)) {
    const hash = await contentHash(join(top, path));
    if (hash !== null) hashes[path] = hash;
  }
  if (paths.length > maxHidden) hashes[overflow] = String(paths.length);
  return hashes;
}

/** The ignored check files created, modified or deleted since the baseline's record. */
export function hiddenCheckChanges(before: HiddenChecks, now: HiddenChecks): CheckChange[] {
  const paths = [...new Set([...Object.keys(before), ...Object.keys(now)])].sort();
  return paths
    .filter((path) => before[path] !== now[path])
    .map((path) => {
      const how = before[path] === undefined ? "created" : now[path] === undefined ? "deleted" : "modified";
      const kind = checkFileKind(path) ?? "check files";
      return { path, change: `${kind} ${how} (git ignores it, so no diff shows it)` };
    });
}

async function contentHash(path: string): Promise<string | null> {
  try {
    const info = await stat(path);
    if (!info.isFile()) return "other";
    if (info.size > maxHashedBytes) return `size:${info.size}:ctime:${info.ctimeMs}`;
    return createHash("sha256")
      .update(await readFile(path))
      .digest("hex");
  } catch (error) {
    // Listed a moment ago and gone now: not there, as the comparison should see it.
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw error;
  }
}

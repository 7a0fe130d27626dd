import * as fs from "node:fs";
import { join } from "node:path";
import { isMissing } from "./context.js";
import { sensitiveRoots } from "./sensitive.js";

/**
 * Device and inode numbers of every secret file that exists: a hard link to a secret has another
 * name (anywhere on the same file system), so names cannot catch it, only the inode can. Walked
 * only when a file with more than one link is met, and bounded so a huge folder cannot stall a check.
 */
const maxEntries = 5000;
const maxDepth = 6;

export function secretInodes(home: string, mercuryHome: string): Set<string> {
  const found = new Set<string>();
  let budget = maxEntries;
  const visit = (path: string, depth: number) => {
    if (budget <= 0) return;
    budget -= 1;
    let stats: fs.Stats;
    try {
      stats = fs.lstatSync(path);
    } catch (error) {
      if (isMissing(error) || isDenied(error)) return;
      throw error;
    }
    if (stats.isFile()) {
      found.add(inodeKey(stats));
      return;
    }
    if (!stats.isDirectory() || depth >= maxDepth) return;
    let names: string[];
    try {
      names = fs.readdirSync(path);
    } catch (error) {
      if (isMissing(error) || isDenied(error)) return;
      throw error;
    }
    for (const name of names) visit(join(path, name), depth + 1);
  };
  for (const root of sensitiveRoots(home, mercuryHome)) visit(root, 0);
  for (const suffix of ["-wal", "-shm", "-journal"]) visit(join(mercuryHome, `mercury.db${suffix}`), 0);
  return found;
}

export function inodeKey(stats: fs.Stats): string {
  return `${stats.dev}:${stats.ino}`;
}

function isDenied(error: unknown): boolean {
  return typeof error === "object" && error !== null && "code" in error && error.code === "EACCES";
}

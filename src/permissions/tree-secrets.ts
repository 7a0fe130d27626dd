import * as fs from "node:fs";
import { join } from "node:path";
import type { PermissionContext } from "./context.js";
import { inodeKey, secretInodes } from "./secret-inodes.js";
import { isEnvFile, sensitiveMatch } from "./sensitive.js";

/**
 * A recursive content search (`grep -r`, `rg`, `diff -r`) reads every file below its folder. A
 * folder inside the workspace can still hold a secret: a private key committed by mistake
 * (`key.pem`, `deploy/id_ed25519`), an `.env`, or a hard link to `~/.ssh/id_rsa` — which the OS
 * sandbox does not mask, since it masks the secret's own name. The tree is walked (bounded; `.git`
 * and `node_modules` skipped, symlinks not followed) and the first such file is returned.
 */
const maxEntries = 20_000;
const skipped = new Set([".git", "node_modules"]);

export function secretInTree(
  root: string,
  context: PermissionContext,
  options: { hidden: boolean },
): { path: string; what: string } | null {
  let budget = maxEntries;
  let inodes: Set<string> | null = null;
  const visit = (directory: string): { path: string; what: string } | null => {
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(directory, { withFileTypes: true });
    } catch {
      // Unreadable or gone: the search cannot read it either.
      return null;
    }
    for (const entry of entries) {
      if (budget-- <= 0) return null;
      if (!options.hidden && entry.name.startsWith(".")) continue;
      const path = join(directory, entry.name);
      if (entry.isDirectory()) {
        if (skipped.has(entry.name)) continue;
        const found = visit(path);
        if (found) return found;
        continue;
      }
      if (!entry.isFile()) continue;
      const named = sensitiveMatch(path, context.home, context.mercuryHome);
      if (named) return { path, what: named.what };
      if (isEnvFile(path)) return { path, what: "an environment file that usually holds secrets" };
      let stats: fs.Stats;
      try {
        stats = fs.lstatSync(path);
      } catch {
        // Vanished between readdir and lstat: nothing left to read.
        continue;
      }
      if (stats.nlink > 1) {
        inodes ??= secretInodes(context.home, context.mercuryHome);
        if (inodes.has(inodeKey(stats))) return { path, what: "a hard link to a secret file" };
      }
    }
    return null;
  };
  return visit(root);
}

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

export interface TreeSecret {
  path: string;
  what: string;
  /** Another name for a file in the secret set: the sandbox's masks do not hide it, so reading is refused. */
  hardLink: boolean;
}

export function secretInTree(
  root: string,
  context: PermissionContext,
  options: { hidden: boolean },
): TreeSecret | null {
  let budget = maxEntries;
  let inodes: Set<string> | null = null;
  // A hard link is refused outright, so the walk goes on past a named secret looking for one.
  let named: TreeSecret | null = null;
  const visit = (directory: string): TreeSecret | null => {
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
      const match = sensitiveMatch(path, context.home, context.mercuryHome);
      if (match) named ??= { path, what: match.what, hardLink: false };
      else if (isEnvFile(path))
        named ??= { path, what: "an environment file that usually holds secrets", hardLink: false };
      let stats: fs.Stats;
      try {
        stats = fs.lstatSync(path);
      } catch {
        // Vanished between readdir and lstat: nothing left to read.
        continue;
      }
      if (stats.nlink > 1) {
        inodes ??= secretInodes(context.home, context.mercuryHome);
        if (inodes.has(inodeKey(stats)))
          return { path, what: "a hard link to a secret file", hardLink: true };
      }
    }
    return null;
  };
  return visit(root) ?? named;
}

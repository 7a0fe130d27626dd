import { lstatSync, realpathSync, type Stats, statSync } from "node:fs";
import { sensitiveLocations } from "../permissions/sensitive.js";

export interface Mask {
  path: string;
  /** A folder is covered by an empty read-only tmpfs, a file by an empty read-only file. */
  type: "directory" | "file";
}

/**
 * The secret locations that exist on this machine, each as it is spelled and as its real path
 * (a symlinked ~/.ssh is masked where it points too). Missing ones need no mask: the file system
 * outside the workspace is read-only, so the command cannot create them.
 */
export function secretMasks(userHome: string, mercuryHome: string): Mask[] {
  const masks = new Map<string, Mask>();
  for (const location of sensitiveLocations(userHome, mercuryHome)) {
    const info = statOrNull(location);
    // A socket (an agent's, a daemon's) is covered like a file: connecting to /dev/null fails.
    if (!info || (!info.isDirectory() && !info.isFile() && !info.isSocket())) continue;
    const type = info.isDirectory() ? "directory" : "file";
    for (const path of new Set([location, realpathSync(location)])) {
      // Mounting over a symlink would follow it; the real path is in the set already.
      if (lstatSync(path).isSymbolicLink()) continue;
      masks.set(path, { path, type });
    }
  }
  return [...masks.values()];
}

function statOrNull(path: string): Stats | null {
  try {
    return statSync(path);
  } catch {
    // Missing or unreadable: nothing there that the sandbox could show.
    return null;
  }
}

import { lstatSync, realpathSync, type Stats, statSync } from "node:fs";
import { sensitiveLocations } from "../permissions/sensitive.js";
import { environmentLocations, systemSocketLocations } from "./environment-locations.js";
import { isInside } from "./workspace.js";

export interface Mask {
  path: string;
  /** A folder is covered by an empty read-only tmpfs, a file by an empty read-only file. */
  type: "directory" | "file";
}

/**
 * The secret locations that exist on this machine, each as it is spelled and as its real path
 * (a symlinked ~/.ssh is masked where it points too): the permission engine's list, the sockets and
 * credential files Mercury's environment names (environment-locations.ts), and daemon sockets outside
 * /run. Missing ones need no mask: the file system outside the workspace is read-only, so the command
 * cannot create them. `keepVisible` (the workspace and the other folders the command is given) are
 * never covered by a place a variable names.
 */
export function secretMasks(
  userHome: string,
  mercuryHome: string,
  env: NodeJS.ProcessEnv = process.env,
  keepVisible: readonly string[] = [],
): Mask[] {
  const masks = new Map<string, Mask>();
  const named = [
    ...environmentLocations(env),
    // Never through a link: /var/run is usually one to /run, which the sandbox replaces already.
    ...systemSocketLocations.filter((location) => !isLink(location)),
  ];
  const found = [
    ...sensitiveLocations(userHome, mercuryHome).map((location) => ({ location, named: false })),
    ...named.map((location) => ({ location, named: true })),
  ];
  for (const { location, named } of found) {
    const info = statOrNull(location);
    // A socket (an agent's, a daemon's) is covered like a file: connecting to /dev/null fails.
    if (!info || (!info.isDirectory() && !info.isFile() && !info.isSocket())) continue;
    const type = info.isDirectory() ? "directory" : "file";
    const real = realpathSync(location);
    // A place a variable names may lie in the sandbox's own /tmp or /run (nothing of the host's to
    // hide there), or hold the workspace (then it cannot be hidden whole).
    if (named && (replacedBySandbox(real) || holdsAny(real, keepVisible) || holdsAny(location, keepVisible)))
      continue;
    for (const path of new Set([location, real])) {
      // Mounting over a symlink would follow it; the real path is in the set already.
      if (lstatSync(path).isSymbolicLink()) continue;
      masks.set(path, { path, type });
    }
  }
  // Nothing to cover inside a folder already covered (a read-only tmpfs takes no mount point).
  const folders = [...masks.values()].filter((mask) => mask.type === "directory").map((mask) => mask.path);
  return [...masks.values()].filter((mask) => !folders.some((folder) => isInside(mask.path, folder)));
}

/** The sandbox brings its own empty /tmp, /run and /dev/shm: nothing of the host's is there to hide. */
function replacedBySandbox(location: string): boolean {
  return ["/tmp", "/run", "/dev/shm"].some((root) => location === root || isInside(location, root));
}

function holdsAny(location: string, paths: readonly string[]): boolean {
  return paths.some((path) => path === location || isInside(path, location));
}

function isLink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    // Missing: nothing to mask, and statOrNull says so.
    return false;
  }
}

function statOrNull(path: string): Stats | null {
  try {
    return statSync(path);
  } catch {
    // Missing or unreadable: nothing there that the sandbox could show.
    return null;
  }
}

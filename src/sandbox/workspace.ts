import { realpathSync } from "node:fs";
import { homedir } from "node:os";
import { resolve, sep } from "node:path";
import { sensitiveMatch } from "../permissions/sensitive.js";

/** Folders whose contents are the system itself: never a writable workspace, nor anything inside them. */
const systemTrees = [
  "/bin",
  "/boot",
  "/dev",
  "/etc",
  "/lib",
  "/lib32",
  "/lib64",
  "/proc",
  "/sbin",
  "/sys",
  "/usr",
  "/run",
];
/** Folders that hold everyone's files: refused themselves, while a project folder inside them is fine. */
const sharedRoots = [
  "/home",
  "/Users",
  "/var",
  "/opt",
  "/srv",
  "/tmp",
  "/mnt",
  "/media",
  "/private",
  "/root",
];

const askForProject =
  "Run the task in a project folder instead (for example `mercury run --cwd ~/projects/NAME`, or `cd` into the project first).";

/**
 * Why `workspace` cannot be the folder a command may write, or null when it can. The workspace is
 * bound writable into the sandbox, so it must not contain what the sandbox protects: `/`, the home
 * folder and every folder above it, system folders, secret folders and Mercury's own home.
 */
export function workspaceRefusal(workspace: string, userHome: string, mercuryHome: string): string | null {
  const real = realOrResolved(workspace);
  const home = realOrResolved(userHome);
  const mercury = realOrResolved(mercuryHome);
  const refuse = (what: string) =>
    `The working directory ${workspace} is ${what}, which Mercury never makes writable for commands. ${askForProject}`;
  if (real === "/") return refuse("the root of the file system");
  if (real === home) return refuse("your home folder");
  if (isInside(home, real)) return refuse(`a folder that contains your home folder (${home})`);
  if (real === mercury || isInside(mercury, real))
    return refuse("Mercury's home folder (MERCURY_HOME) or above it");
  for (const tree of systemTrees)
    if (real === tree || isInside(real, tree)) return refuse(`a system folder (${tree})`);
  if (sharedRoots.includes(real)) return refuse("a folder shared by every user");
  const secret = sensitiveMatch(real, home, mercury);
  if (secret) return refuse(`a protected location (${secret.what})`);
  return null;
}

/** True when `path` is strictly below `root`. */
export function isInside(path: string, root: string): boolean {
  const prefix = root.endsWith(sep) ? root : `${root}${sep}`;
  return path.startsWith(prefix);
}

export function realOrResolved(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    // Not there yet: the sandbox reports a missing workspace on its own; compare the spelled path.
    return resolve(path);
  }
}

/** The user's home folder as Mercury's settings see it ($HOME, else the account's). */
export function userHomeOf(env: NodeJS.ProcessEnv): string {
  return env.HOME && env.HOME.trim() !== "" ? env.HOME : homedir();
}

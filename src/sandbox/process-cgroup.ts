import {
  accessSync,
  constants,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmdirSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import type { Launch } from "./types.js";

/**
 * The process-count limit for root. RLIMIT_NPROC (set by the limit prologue) holds a command run
 * by a user: inside bwrap's user namespace the kernel counts only that namespace's processes. For
 * uid 0 the kernel never applies RLIMIT_NPROC, so a command run by root gets a pids cgroup of its
 * own instead (`pids.max`), when this machine has a pids hierarchy root can write: cgroup v1's
 * `pids`, or the cgroup v2 root with the pids controller enabled for its children. The sandbox
 * cannot leave it: /sys is read-only inside and every capability is dropped.
 */
export interface ProcessCgroup {
  /** The launch wrapped so the command enters the cgroup before bwrap starts. */
  wrap(launch: Launch): Launch;
  /**
   * Removes the cgroup once the command has ended. The kernel reaps the sandbox's processes just
   * after its pid 1 exits, so this waits (up to ~5 s) for the cgroup to empty; returns why it could
   * not be removed, or null.
   */
  release(): Promise<string | null>;
}

let sequence = 0;

/** A pids cgroup limited to `maxProcesses`, or null when Mercury is not root or none can be made here. */
export function processCgroup(maxProcesses: number, root = process.getuid?.() === 0): ProcessCgroup | null {
  if (!root) return null;
  const parent = writablePidsHierarchy();
  if (!parent) return null;
  removeStale(parent);
  const directory = join(parent, `mercury-${process.pid}-${++sequence}`);
  try {
    mkdirSync(directory);
    writeFileSync(join(directory, "pids.max"), String(maxProcesses));
  } catch (error) {
    removeQuietly(directory);
    throw new Error(`could not set up the process-count limit in ${directory}: ${String(error)}`);
  }
  const procs = join(directory, "cgroup.procs");
  return {
    wrap: (launch) => ({
      file: "/bin/sh",
      args: ["-c", 'echo $$ > "$1" && shift && exec "$@"', "sh", procs, launch.file, ...launch.args],
    }),
    release: async () => {
      for (let attempt = 0; attempt < 250 && holdsProcesses(procs); attempt++)
        await new Promise((resolve) => setTimeout(resolve, 20));
      return removeQuietly(directory);
    },
  };
}

function writablePidsHierarchy(): string | null {
  const v1 = "/sys/fs/cgroup/pids";
  if (isWritableDirectory(v1) && existsSync(join(v1, "cgroup.procs"))) return v1;
  const v2 = "/sys/fs/cgroup";
  const control = join(v2, "cgroup.subtree_control");
  if (!existsSync(control) || !isWritableDirectory(v2)) return null;
  try {
    return readFileSync(control, "utf8").split(/\s+/).includes("pids") ? v2 : null;
  } catch {
    // Unreadable: treated as no usable hierarchy; doctor's sandbox line says which limit holds.
    return null;
  }
}

/**
 * Empty cgroups a Mercury that died without cleaning up left behind (killed with SIGKILL while a
 * command ran): `mercury-<pid>-<n>` whose pid is gone. rmdir removes only empty ones.
 */
function removeStale(parent: string): void {
  let names: string[];
  try {
    names = readdirSync(parent);
  } catch {
    // Unlistable: nothing to tidy; creating ours reports the real problem if there is one.
    return;
  }
  for (const name of names) {
    const match = /^mercury-(\d+)-\d+$/.exec(name);
    if (!match || isAlive(Number(match[1]))) continue;
    removeQuietly(join(parent, name));
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return !(typeof error === "object" && error !== null && "code" in error && error.code === "ESRCH");
  }
}

function holdsProcesses(procs: string): boolean {
  try {
    return readFileSync(procs, "utf8").trim() !== "";
  } catch {
    // Gone already: nothing left in it.
    return false;
  }
}

function isWritableDirectory(path: string): boolean {
  try {
    accessSync(path, constants.W_OK);
    return true;
  } catch {
    // Not writable (or not there): no cgroup from here.
    return false;
  }
}

/** Returns why the cgroup could not be removed, or null. */
function removeQuietly(directory: string): string | null {
  try {
    rmdirSync(directory);
    return null;
  } catch (error) {
    if (typeof error === "object" && error !== null && "code" in error && error.code === "ENOENT")
      return null;
    return `could not remove ${directory}: ${String(error)}`;
  }
}

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
 * Limits on all of a command's processes together, in cgroups of its own. RLIMIT_NPROC (set by the
 * limit prologue) holds a command run by a user: inside bwrap's user namespace the kernel counts only
 * that namespace's processes; for uid 0 the kernel never applies it, so a command run by root gets a
 * pids cgroup (`pids.max`). Memory limits (RLIMIT_DATA) are per process: found in session 9, forty
 * processes under the 8 GiB limit each (or one filling the memory-backed /tmp) could take the whole
 * host's memory; a memory cgroup (`memory.limit_in_bytes`, v2 `memory.max`) bounds them together,
 * tmpfs pages they write included. Each group is made below Mercury's own group of that hierarchy,
 * never at its top: a group at the top would lift the command out of the limits the host set on
 * Mercury (systemd's TasksMax, a container's memory limit). cgroup v2 allows that nesting only for a
 * group without processes of its own, so v2 is used only when Mercury sits in the (namespace's) root
 * group. The sandbox cannot leave its groups: /sys is read-only inside and every capability is dropped.
 */
export interface ProcessCgroup {
  /** The launch wrapped so the command enters the groups before bwrap starts. */
  wrap(launch: Launch): Launch;
  /**
   * Removes the groups once the command has ended. The kernel reaps the sandbox's processes just
   * after its pid 1 exits, so this waits (up to ~5 s) for them to empty; returns why one could not be
   * removed, or null.
   */
  release(): Promise<string | null>;
}

export interface CgroupLimits {
  processes: number;
  /** All processes of the command together, bytes (their tmpfs pages included). */
  totalMemoryBytes?: number;
}

type Controller = "pids" | "memory";
interface Hierarchy {
  controller: Controller;
  /** The folder the command's group is made in: Mercury's own group of this hierarchy. */
  parent: string;
  /** The file that takes the limit. */
  limitFile: string;
}

let sequence = 0;

/**
 * Groups for one command, or null when none applies: a user's command without a writable memory
 * hierarchy (RLIMIT_NPROC holds its processes), or a machine with no hierarchy Mercury may write.
 */
export function processCgroup(limits: CgroupLimits, root = process.getuid?.() === 0): ProcessCgroup | null {
  const wanted: { hierarchy: Hierarchy; value: number }[] = [];
  const pids = root ? writableHierarchy("pids") : null;
  if (pids) wanted.push({ hierarchy: pids, value: limits.processes });
  const memory = limits.totalMemoryBytes === undefined ? null : writableHierarchy("memory");
  if (memory && limits.totalMemoryBytes !== undefined)
    wanted.push({ hierarchy: memory, value: limits.totalMemoryBytes });
  if (wanted.length === 0) return null;
  const name = `mercury-${process.pid}-${++sequence}`;
  const made: string[] = [];
  try {
    for (const { hierarchy, value } of wanted) {
      removeStale(hierarchy.parent);
      const directory = join(hierarchy.parent, name);
      mkdirSync(directory);
      made.push(directory);
      writeFileSync(join(directory, hierarchy.limitFile), String(value));
    }
  } catch (error) {
    for (const directory of made) removeQuietly(directory);
    throw new Error(`could not set up the command's cgroup limits (${made.join(", ")}): ${String(error)}`);
  }
  const procsFiles = made.map((directory) => join(directory, "cgroup.procs"));
  return {
    wrap: (launch) => ({
      file: "/bin/sh",
      args: ["-c", enterScript, "sh", String(procsFiles.length), ...procsFiles, launch.file, ...launch.args],
    }),
    release: async () => {
      for (let attempt = 0; attempt < 250 && procsFiles.some(holdsProcesses); attempt++)
        await new Promise((resolve) => setTimeout(resolve, 20));
      const problems = made.map(removeQuietly).filter((problem) => problem !== null);
      return problems.length > 0 ? problems.join("; ") : null;
    },
  };
}

/**
 * The same limits for a program whose caller holds no handle to release them (Mercury's own git calls,
 * MCP servers: session 9 left them with per-process limits only). A shell outside the sandbox makes
 * the groups (`mercury-<its pid>-0` below Mercury's own), joins them, runs the program, and when it
 * ends leaves and removes them. A signal to the shell (a caller's timeout, a server stopped) is passed
 * to the program; killed outright, the shell leaves an empty group that the next command's setup
 * removes (its pid is gone). Returns null where no group applies, or without util-linux's setpriv
 * (the shell must die with Mercury; see below): such a program keeps its per-process limits only.
 */
export function selfManagedCgroup(
  limits: CgroupLimits,
  root = process.getuid?.() === 0,
): ((launch: Launch) => Launch) | null {
  const wanted: string[] = [];
  const pids = root ? writableHierarchy("pids") : null;
  if (pids) wanted.push(pids.parent, pids.limitFile, String(limits.processes));
  const memory = limits.totalMemoryBytes === undefined ? null : writableHierarchy("memory");
  if (memory && limits.totalMemoryBytes !== undefined)
    wanted.push(memory.parent, memory.limitFile, String(limits.totalMemoryBytes));
  // The shell stands between Mercury and bwrap, so bwrap's --die-with-parent would watch the shell:
  // setpriv makes the shell die with Mercury, and bwrap (with everything it runs) with the shell.
  const setpriv = ["/usr/bin/setpriv", "/bin/setpriv"].find((path) => existsSync(path));
  if (wanted.length === 0 || !setpriv) return null;
  for (const hierarchy of [pids, memory]) if (hierarchy) removeStale(hierarchy.parent);
  return (launch) => ({
    file: setpriv,
    args: [
      "--pdeathsig",
      "KILL",
      "/bin/sh",
      "-c",
      selfManagedScript,
      "sh",
      String(wanted.length / 3),
      ...wanted,
      launch.file,
      ...launch.args,
    ],
  });
}

/**
 * `sh -c SCRIPT sh N (PARENT LIMIT-FILE VALUE)×N PROGRAM ARGS…`. The program runs in the background,
 * so that the shell is still there to remove the groups after it, with the shell's own stdin (an MCP
 * server's protocol channel): dash points a background job's fd 0 at /dev/null before its
 * redirections, so stdin goes through fd 3.
 */
const selfManagedScript = `n=$1; shift; name="mercury-$$-0"; parents=""
while [ "$n" -gt 0 ]; do
  group="$1/$name"
  mkdir "$group" && echo "$3" > "$group/$2" && echo $$ > "$group/cgroup.procs" || { echo "mercury: could not set up the cgroup limits in $group" >&2; exit 125; }
  parents="$parents
$1"; shift 3; n=$((n-1))
done
child=""
trap '[ -n "$child" ] && kill -TERM "$child" 2>/dev/null' TERM INT HUP
exec 3<&0
"$@" 0<&3 3<&- &
child=$!
wait "$child"; status=$?
while kill -0 "$child" 2>/dev/null; do wait "$child"; status=$?; done
# No pipe here: a subshell would stay in the group it is trying to remove.
IFS='
'
for parent in $parents; do
  echo $$ > "$parent/cgroup.procs"
  tries=0
  until rmdir "$parent/$name" 2>/dev/null || [ $tries -ge 250 ]; do sleep 0.02; tries=$((tries+1)); done
done
exit $status`;

/** `sh -c SCRIPT sh N PROCS… PROGRAM ARGS…`: joins the N groups, then execs the program. */
const enterScript =
  'n=$1; shift; while [ "$n" -gt 0 ]; do echo $$ > "$1" || exit 125; shift; n=$((n-1)); done; exec "$@"';

/** One line for `doctor` and `status`: what holds all of a command's processes together here. */
export function describeCgroupLimits(root = process.getuid?.() === 0): string {
  const memory = writableHierarchy("memory");
  const processes = root
    ? writableHierarchy("pids")
      ? "process count: a pids cgroup per command"
      : "process count: NOT limited (root is exempt from RLIMIT_NPROC and no pids cgroup can be made here)"
    : "process count: RLIMIT_NPROC in the sandbox's user namespace";
  const total = memory
    ? `total memory: a memory cgroup per command below ${memory.parent}`
    : "total memory: per process only (no memory cgroup Mercury may create here; a command's processes together are not bounded)";
  return `${processes}; ${total}`;
}

function writableHierarchy(controller: Controller): Hierarchy | null {
  const limitFile = controller === "pids" ? "pids.max" : "memory.limit_in_bytes";
  const own = ownGroups();
  const v1Path = own.get(controller);
  if (v1Path !== undefined) {
    const parent = join("/sys/fs/cgroup", controller, v1Path);
    // The limit file exists in the child only (a hierarchy's root group has no `pids.max`).
    if (isWritableDirectory(parent) && existsSync(join(parent, "cgroup.procs")))
      return { controller, parent, limitFile };
    return null;
  }
  // v2: only from the root group (a v2 group with processes of its own cannot have children in use).
  const v2 = "/sys/fs/cgroup";
  const control = join(v2, "cgroup.subtree_control");
  if (own.get("") !== "/" || !existsSync(control) || !isWritableDirectory(v2)) return null;
  try {
    const enabled = readFileSync(control, "utf8").split(/\s+/).includes(controller);
    return enabled
      ? { controller, parent: v2, limitFile: controller === "pids" ? "pids.max" : "memory.max" }
      : null;
  } catch {
    // Unreadable: treated as no usable hierarchy; doctor's sandbox line says which limit holds.
    return null;
  }
}

/** Mercury's own group per v1 controller, and "" for the v2 group, from /proc/self/cgroup. */
function ownGroups(): Map<string, string> {
  const groups = new Map<string, string>();
  let text: string;
  try {
    text = readFileSync("/proc/self/cgroup", "utf8");
  } catch {
    // No /proc (not Linux): no cgroups.
    return groups;
  }
  for (const line of text.split("\n")) {
    const match = /^\d+:([^:]*):(.*)$/.exec(line);
    if (!match) continue;
    const [, controllers = "", path = ""] = match;
    for (const controller of controllers.split(",")) groups.set(controller, path);
  }
  return groups;
}

/**
 * Empty groups a Mercury that died without cleaning up left behind (killed with SIGKILL while a
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

/** Returns why the group could not be removed, or null. */
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

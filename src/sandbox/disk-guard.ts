import { existsSync, statfsSync, statSync } from "node:fs";
import type { Launch } from "./types.js";

/**
 * Free disk space kept while a sandboxed command runs. The workspace is writable and RLIMIT_FSIZE
 * bounds one file only, so a command could fill the disk with many files (found open in session 9):
 * the host's other programs and Mercury's own database (MERCURY_HOME, usually on the same disk) then
 * fail to write. There is no per-folder quota without file-system support (project quotas, an image
 * file), so Mercury watches the free space of every file system the command may write or Mercury
 * must write, and stops the command when one falls below a floor. The floor is the configured
 * `diskFloorBytes` as it is, else the larger of 1 GiB and 2% of the disk, but never more than half of what was
 * free when the command started: a command on a disk that is already nearly full can still run and
 * use half of what is left, so nothing is refused for the disk's state alone.
 */
export interface DiskGuard {
  /** Why the command was stopped (the first file system found below its floor), or null. */
  reason(): string | null;
  stop(): void;
}

const checkEveryMs = 250;
const mebibyte = 1024 ** 2;

export interface WatchedFolder {
  folder: string;
  /** Bytes: below this much free space the command is stopped. */
  floor: number;
}

/** One folder per file system among `folders` that exist, each with its floor (see above). */
export function diskFloors(folders: readonly string[], configuredFloor?: number): WatchedFolder[] {
  const watched: WatchedFolder[] = [];
  const devices = new Set<number>();
  for (const folder of folders) {
    const device = deviceOf(folder);
    if (device === null || devices.has(device)) continue;
    devices.add(device);
    const space = freeSpace(folder);
    if (!space) continue;
    const floor = configuredFloor ?? Math.min(Math.max(1024 * mebibyte, space.size * 0.02), space.free / 2);
    watched.push({ folder, floor });
  }
  return watched;
}

export function watchDiskSpace(
  folders: readonly string[],
  onLow: (reason: string) => void,
  configuredFloor?: number,
): DiskGuard {
  return watchFloors(diskFloors(folders, configuredFloor), onLow);
}

/** The same guard for floors already computed (diskFloors): Mercury's own git calls (wrap.ts). */
export function watchFloors(watched: readonly WatchedFolder[], onLow: (reason: string) => void): DiskGuard {
  let tripped: string | null = null;
  const timer =
    watched.length === 0
      ? null
      : setInterval(() => {
          for (const { folder, floor } of watched) {
            let space: { free: number; size: number } | null;
            try {
              space = freeSpace(folder);
            } catch (error) {
              // Fail closed: a disk Mercury can no longer measure may be the one filling up.
              space = null;
              tripped = `${(error as Error).message}; the command is stopped, since Mercury cannot tell whether it is filling the disk`;
            }
            if (!tripped && (!space || space.free >= floor)) continue;
            tripped ??= `the disk holding ${folder} fell to ${Math.floor((space?.free ?? 0) / mebibyte)} MiB free while the command ran; Mercury stops a command below ${Math.ceil(floor / mebibyte)} MiB free, so the machine and Mercury's database keep room to write. Remove what the command wrote (or free space) and run it again`;
            stop();
            onLow(tripped);
            return;
          }
        }, checkEveryMs);
  // The guard must not keep Mercury alive on its own.
  timer?.unref();
  function stop() {
    if (timer) clearInterval(timer);
  }
  return { reason: () => tripped, stop };
}

function deviceOf(folder: string): number | null {
  try {
    return statSync(folder).dev;
  } catch (error) {
    // Missing (a MERCURY_HOME not made yet): nothing on it to protect. Any other error (EACCES,
    // ELOOP, EIO) is reported: a folder the guard cannot see is not a folder with nothing on it.
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw new Error(`Mercury cannot watch the free space of ${folder}: ${(error as Error).message}`);
  }
}

function freeSpace(folder: string): { free: number; size: number } | null {
  try {
    const info = statfsSync(folder);
    // bavail: what an unprivileged writer may still use (root may also take the reserved blocks).
    return { free: info.bavail * info.bsize, size: info.blocks * info.bsize };
  } catch (error) {
    // Removed while the command ran: nothing left to watch there. Other errors are reported.
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw new Error(`Mercury cannot read the free space of ${folder}: ${(error as Error).message}`);
  }
}

/**
 * The same floor around a program Mercury starts but does not wait on (an MCP server, which runs as
 * long as Mercury does and may write its `$MERCURY_HOME/mcp/<name>/` without bound; Mercury's own
 * git calls, which it waits for, use watchFloors instead: no shell, no `sleep` per call): a shell
 * starts the program in the background and a watcher beside it reads the free space every second
 * (`stat -f`); below a floor it writes the reason on stderr, prefixed `mercury:`, and kills the
 * program (bwrap, whose sandbox dies with it). The shell stands between Mercury and bwrap, so
 * `setpriv --pdeathsig` makes it die with Mercury (bwrap's --die-with-parent then holds). Null
 * without setpriv or without anything to watch: the launch then runs unwatched.
 */
export function diskWatchedLaunch(launch: Launch, watched: readonly WatchedFolder[]): Launch | null {
  const setpriv = ["/usr/bin/setpriv", "/bin/setpriv"].find((path) => existsSync(path));
  // A newline would split the shell's list; such a folder is not watched rather than misread.
  const usable = watched.filter(({ folder }) => !folder.includes("\n"));
  if (!setpriv || usable.length === 0) return null;
  const pairs = usable.flatMap(({ folder, floor }) => [folder, String(Math.ceil(floor / 1024))]);
  return {
    file: setpriv,
    args: [
      "--pdeathsig",
      "KILL",
      "/bin/sh",
      "-c",
      diskWatchScript,
      "sh",
      String(usable.length),
      ...pairs,
      launch.file,
      ...launch.args,
    ],
  };
}

/**
 * `sh -c SCRIPT sh N (FOLDER FLOOR-KIB)×N PROGRAM ARGS…`. stdin reaches the background program
 * through fd 3 (dash points a background job's fd 0 at /dev/null). The watcher stops when the
 * program is gone (kill -0 fails once the shell has reaped it).
 */
const diskWatchScript = `n=$1; shift; pairs=""
while [ "$n" -gt 0 ]; do pairs="$pairs
$1
$2"; shift 2; n=$((n-1)); done
exec 3<&0
"$@" 0<&3 3<&- &
child=$!
exec 3<&-
(
  set -f; IFS='
'
  # The pause runs in the background and is waited for, so that the TERM sent when the program ends
  # stops it at once: an orphaned sleep would hold the cgroup (process-cgroup.ts waits for it to empty)
  # for up to a second after every program.
  sleeper=""
  trap 'kill "$sleeper" 2>/dev/null; exit 0' TERM
  while :; do
    sleep 1 >/dev/null 2>&1 &
    sleeper=$!
    wait "$sleeper"
    kill -0 "$child" 2>/dev/null || exit 0
    folder=""
    for item in $pairs; do
      if [ -z "$folder" ]; then folder=$item; continue; fi
      if ! free=$(stat -f -c '%a %S' -- "$folder" 2>/dev/null); then
        # Gone: nothing left to watch there. There but unreadable: stopped, like the guard in Node.
        if [ -e "$folder" ]; then
          echo "mercury: stopped: cannot read the free space of $folder" >&2
          kill -KILL "$child" 2>/dev/null
          exit 0
        fi
        folder=""; continue
      fi
      blocks=\${free% *}; size=\${free#* }
      kib=$((blocks / 1024 * size + blocks % 1024 * size / 1024))
      if [ "$kib" -lt "$item" ]; then
        echo "mercury: stopped: the disk holding $folder fell to $((kib / 1024)) MiB free; Mercury stops a program below $((item / 1024)) MiB free, so the machine and Mercury's database keep room to write" >&2
        kill -KILL "$child" 2>/dev/null
        exit 0
      fi
      folder=""
    done
  done
# Not holding the program's stdout (an MCP server's protocol channel): its end is seen at once.
) </dev/null >/dev/null &
watcher=$!
trap 'kill -TERM "$child" 2>/dev/null' TERM INT HUP
wait "$child"; status=$?
while kill -0 "$child" 2>/dev/null; do wait "$child"; status=$?; done
kill "$watcher" 2>/dev/null
exit $status`;

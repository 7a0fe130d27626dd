import { statfsSync, statSync } from "node:fs";

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

interface Watched {
  folder: string;
  floor: number;
}

export function watchDiskSpace(
  folders: readonly string[],
  onLow: (reason: string) => void,
  configuredFloor?: number,
): DiskGuard {
  const watched: Watched[] = [];
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
  let tripped: string | null = null;
  const timer =
    watched.length === 0
      ? null
      : setInterval(() => {
          for (const { folder, floor } of watched) {
            const space = freeSpace(folder);
            if (!space || space.free >= floor) continue;
            tripped = `the disk holding ${folder} fell to ${Math.floor(space.free / mebibyte)} MiB free while the command ran; Mercury stops a command below ${Math.ceil(floor / mebibyte)} MiB free, so the machine and Mercury's database keep room to write. Remove what the command wrote (or free space) and run it again`;
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
  } catch {
    // Missing (a MERCURY_HOME not made yet): nothing on it to protect.
    return null;
  }
}

function freeSpace(folder: string): { free: number; size: number } | null {
  try {
    const info = statfsSync(folder);
    // bavail: what an unprivileged writer may still use (root may also take the reserved blocks).
    return { free: info.bavail * info.bsize, size: info.blocks * info.bsize };
  } catch {
    // Removed while the command ran: nothing left to watch there.
    return null;
  }
}

import * as fs from "node:fs";
import { isWithin } from "./context.js";

/**
 * System locations the agent never writes, in any mode: the operating system's own trees, kernel
 * interfaces and device nodes. Shared by the command hardline and the file tools' hardline.
 */
export const systemTrees = [
  "/boot",
  "/etc",
  "/usr",
  "/bin",
  "/sbin",
  "/lib",
  "/lib32",
  "/lib64",
  "/libx32",
  "/var",
  "/System",
  "/Library",
  "/private/etc",
  "/private/var",
];

/** Inside /var, what is scratch space rather than system state (macOS puts $TMPDIR under /var/folders). */
const scratchUnderSystem = ["/var/tmp", "/var/folders", "/private/var/tmp", "/private/var/folders"];

export const kernelTrees = ["/proc", "/sys"];

/** Devices that are not disks: writing to them cannot destroy data. */
export const harmlessDevices = new Set([
  "/dev/null",
  "/dev/zero",
  "/dev/full",
  "/dev/stdout",
  "/dev/stderr",
  "/dev/stdin",
  "/dev/tty",
  "/dev/random",
  "/dev/urandom",
]);

export function systemTreeOf(path: string): string | null {
  if (scratchUnderSystem.some((root) => isWithin(path, root))) return null;
  return [...systemTrees, ...kernelTrees].find((root) => isWithin(path, root)) ?? null;
}

export function isKernelPath(path: string): boolean {
  return kernelTrees.some((root) => isWithin(path, root));
}

/** A device node other than the harmless ones, by name under /dev or by what the file system says it is. */
export function isDevice(path: string, stats?: fs.Stats | null): boolean {
  if (harmlessDevices.has(path) || path.startsWith("/dev/fd/") || path.startsWith("/dev/pts/")) return false;
  if (path === "/dev" || path.startsWith("/dev/")) return true;
  let info = stats ?? null;
  if (!info) {
    try {
      info = fs.statSync(path);
    } catch {
      // A path that does not exist (or cannot be read) is no device node.
      return false;
    }
  }
  return info.isBlockDevice() || info.isCharacterDevice();
}

import type { SandboxLimits } from "./types.js";

/**
 * A shell script that sets the limits, then runs the command (`"$1"`) with them: every process the
 * command starts inherits them. Used as `/bin/sh -c PROLOGUE sh COMMAND`. POSIX units: -v in KiB,
 * -f in 512-byte blocks (dash, and bash as /bin/sh, which runs in POSIX mode). A limit that cannot be
 * set stops the command with the shell's own error instead of running it unlimited.
 */
export function limitPrologue(limits: SandboxLimits): string {
  const memoryKib = Math.floor(limits.memoryBytes / 1024);
  const fileBlocks = Math.floor(limits.fileSizeBytes / 512);
  return `ulimit -v ${memoryKib} && ulimit -f ${fileBlocks} && ulimit -n ${limits.openFiles} && exec /bin/sh -c "$1"`;
}

import type { SandboxLimits } from "./types.js";

/**
 * A shell script that sets the limits, then execs its arguments with them: every process started
 * from there inherits them. Used as `/bin/sh -c PROLOGUE sh PROGRAM ARGS…`. Memory is the data limit
 * (RLIMIT_DATA: private writable memory actually used), not the address space (RLIMIT_AS): Node's
 * WebAssembly (fetch's HTTP parser) and Go reserve many GiB of address space they never use, and
 * broke under an 8 GiB RLIMIT_AS. Units: -d in KiB, -f in 512-byte blocks (dash, and bash as /bin/sh,
 * which runs in POSIX mode). A limit that cannot be set stops the command with the shell's own error
 * instead of running it unlimited.
 */
export function limitPrologue(limits: SandboxLimits): string {
  const memoryKib = Math.floor(limits.memoryBytes / 1024);
  const fileBlocks = Math.floor(limits.fileSizeBytes / 512);
  // The wall-clock limit inside the sandbox is a backstop for when Mercury is gone: Mercury stops the
  // command at its own time limit, but a sandbox whose Mercury died while bwrap was starting can miss
  // its parent-death signal (a race in bwrap), and then only this ends it.
  const deadline = limits.wallClockSeconds === undefined ? "" : `timeout -s KILL ${limits.wallClockSeconds} `;
  // Processes: bash calls RLIMIT_NPROC -u, dash -p (bash's -p is the read-only pipe size, so a
  // bash that refuses -u fails the chain rather than run without the limit).
  const processes = `{ ulimit -u ${limits.processes} 2>/dev/null || ulimit -p ${limits.processes}; }`;
  return `ulimit -d ${memoryKib} && ulimit -f ${fileBlocks} && ulimit -n ${limits.openFiles} && ${processes} && exec ${deadline}"$@"`;
}

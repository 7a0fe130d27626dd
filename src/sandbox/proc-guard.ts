import { statSync } from "node:fs";

/**
 * What the sandbox's own /proc must not offer. bwrap mounts a fresh proc and covers `sys`,
 * `sysrq-trigger`, `irq` and `bus` only when its own access(W_OK) test says they are writable; run by
 * root that test fails after bwrap drops its capabilities, so nothing is covered. The command then
 * runs as uid 0 without capabilities, which is still the owner of every sysctl: found in session 8,
 * `echo '|/prog' > /proc/sys/kernel/core_pattern` from a sandboxed command changed the host's
 * core_pattern (the kernel runs that program as root on the next crash; `kernel.modprobe` is the same),
 * and `/proc/sysrq-trigger` reboots the host. So those trees are bound read-only here, as Docker does
 * (`sys`, `sysrq-trigger`, `fs`, `bus`, `irq`; the bind comes from the host's /proc, whose sysctls are
 * the caller's namespaces' anyway), and the files that show host-wide state no sandboxed program needs
 * are hidden: the kernel keyrings' names, kernel memory, timers and scheduler internals. The rest of
 * /proc stays writable: a process's own files (`uid_map` for a nested `unshare -r`, `oom_score_adj`).
 * The covers also make this /proc not "fully visible", so a nested user namespace cannot mount a fresh,
 * uncovered proc.
 */
const hiddenProcFiles = [
  "/proc/keys",
  "/proc/key-users",
  "/proc/kcore",
  "/proc/timer_list",
  "/proc/timer_stats",
  "/proc/sched_debug",
  "/proc/latency_stats",
];
const hiddenProcFolders = ["/proc/acpi", "/proc/scsi"];

const readOnlyProc = ["/proc/sys", "/proc/sysrq-trigger", "/proc/fs", "/proc/bus", "/proc/irq"];

/** bwrap arguments to follow `--proc /proc`: the kernel's settings read-only, host-wide files hidden. */
export function procGuardArgs(exists: (path: string) => "file" | "directory" | null = kindOf): string[] {
  const args: string[] = [];
  for (const path of readOnlyProc) if (exists(path) !== null) args.push("--ro-bind", path, path);
  for (const path of hiddenProcFiles) if (exists(path) === "file") args.push("--ro-bind", "/dev/null", path);
  for (const path of hiddenProcFolders)
    if (exists(path) === "directory") args.push("--tmpfs", path, "--remount-ro", path);
  return args;
}

function kindOf(path: string): "file" | "directory" | null {
  try {
    const info = statSync(path);
    return info.isDirectory() ? "directory" : "file";
  } catch {
    // Not on this kernel: nothing to hide.
    return null;
  }
}

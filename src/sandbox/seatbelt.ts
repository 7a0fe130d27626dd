import { join } from "node:path";
import { limitPrologue } from "./limits.js";
import type { Mask } from "./masks.js";
import type { Launch, SandboxPolicy } from "./types.js";

/**
 * The macOS `sandbox-exec` profile (SBPL) with the same rules as the Linux sandbox. In SBPL the last
 * matching rule wins, so the broad allows come first and the denies after them. What macOS cannot
 * express the same way: processes are not hidden (no pid namespace; `process-info` of others is
 * denied instead), and with network granted only loopback can be refused, not private ranges.
 */
export function seatbeltProfile(policy: SandboxPolicy, masks: Mask[]): string {
  const lines = [
    "(version 1)",
    "(deny default)",
    "(allow process-exec)",
    "(allow process-fork)",
    "(allow signal (target same-sandbox))",
    "(allow process-info* (target same-sandbox))",
    "(allow sysctl-read)",
    "(allow mach-lookup)",
    "(allow ipc-posix-shm)",
    "(allow iokit-open)",
    "(allow file-read*)",
    `(allow file-write* ${[policy.workspace, ...(policy.extraWritable ?? []), "/private/tmp", "/private/var/folders"].map(subpath).join(" ")} (literal "/dev/null") (literal "/dev/tty") (regex #"^/dev/fd/"))`,
    `(deny file-read* file-write* ${subpath(policy.mercuryHome)})`,
    ...(policy.hideSkills ? [] : [`(allow file-read* ${subpath(join(policy.mercuryHome, "skills"))})`]),
    // The daemon's default workspace lives inside Mercury's home: it is the one writable part of it.
    `(allow file-read* file-write* ${subpath(policy.workspace)})`,
  ];
  for (const mask of masks) {
    const filter = mask.type === "directory" ? subpath(mask.path) : literal(mask.path);
    lines.push(`(deny file-read* file-write* ${filter})`);
  }
  if (policy.network) {
    lines.push("(allow network*)", '(deny network-outbound (remote ip "localhost:*"))');
  } else {
    lines.push("(deny network*)", '(allow network-outbound (literal "/private/var/run/mDNSResponder"))');
  }
  return `${lines.join("\n")}\n`;
}

export function seatbeltLaunch(policy: SandboxPolicy, masks: Mask[], argv: string[]): Launch {
  const profile = seatbeltProfile(policy, masks);
  return {
    file: "/usr/bin/sandbox-exec",
    args: ["-p", profile, "/bin/sh", "-c", limitPrologue(policy.limits), "sh", ...argv],
  };
}

function subpath(path: string): string {
  return `(subpath ${quote(path)})`;
}

function literal(path: string): string {
  return `(literal ${quote(path)})`;
}

/** SBPL strings are Scheme strings: backslash and double quote are escaped. */
export function quote(path: string): string {
  return `"${path.replace(/[\\"]/g, (character) => `\\${character}`)}"`;
}

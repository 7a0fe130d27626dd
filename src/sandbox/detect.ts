import { accessSync, constants } from "node:fs";
import { delimiter, join } from "node:path";

/**
 * Stand-in for the sandbox engineer's detector (issue 9, item 1), with the agreed signature, so the
 * permission engine can be told whether an OS sandbox contains what `--yes` approves. Replaced at merge.
 */
export type SandboxStatus =
  | { available: true; kind: "bubblewrap" | "sandbox-exec" }
  | { available: false; reason: string; fix: string };

export function detectSandbox(): SandboxStatus {
  if (process.platform !== "linux") {
    return {
      available: false,
      reason: `no OS sandbox is supported on ${process.platform} by this build`,
      fix: "run Mercury on Linux with bubblewrap installed",
    };
  }
  for (const directory of (process.env.PATH ?? "").split(delimiter)) {
    if (directory === "") continue;
    try {
      accessSync(join(directory, "bwrap"), constants.X_OK);
      return { available: true, kind: "bubblewrap" };
    } catch {
      // Not in this PATH entry; keep looking.
    }
  }
  return {
    available: false,
    reason: "bubblewrap (bwrap) is not installed or not on PATH",
    fix: "install it: sudo apt-get install bubblewrap (Debian/Ubuntu) or sudo dnf install bubblewrap (Fedora)",
  };
}

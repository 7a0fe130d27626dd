import type { SandboxStatus } from "./types.js";

/** One line for `status` and `doctor`: which sandbox contains commands, or that none does and the fix. */
export function describeSandbox(status: SandboxStatus): string {
  if (status.available) return `${status.kind} (every command runs contained)`;
  return `NONE: ${status.reason}; commands that are not provably read-only need approval and --yes refuses them. Fix: ${status.fix}`;
}

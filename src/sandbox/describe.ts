import type { SandboxStatus } from "./types.js";

/**
 * One line for `status` and `doctor`: which sandbox contains commands and what a command granted
 * the network can reach, or that there is no sandbox and the fix.
 */
export function describeSandbox(status: SandboxStatus): string {
  if (!status.available)
    return `NONE: ${status.reason}; commands that are not provably read-only need approval and --yes refuses them. Fix: ${status.fix}`;
  return `${status.kind} (every command runs contained; ${describeNetwork(status)})`;
}

/**
 * The sentence an approval of a command that needs the network carries, so the person approving
 * knows what the command will be able to reach (README "The network of a command granted it").
 */
export function networkApprovalNote(status: SandboxStatus | undefined): string {
  if (!status?.available) return "approving also gives it this machine's network: no OS sandbox filters it";
  if (status.kind === "sandbox-exec")
    return "approving gives it the network: everything except this machine's loopback (macOS cannot filter private ranges)";
  if (!status.network) return "approving gives it the network";
  if (status.network.available)
    return "approving gives it the filtered network: the public internet and DNS, never this machine, its loopback, your LAN, private ranges or cloud metadata addresses";
  return "it needs the network, which the sandbox cannot filter here (no slirp4netns): it will be refused unless sandbox.unfilteredNetwork gives it the host's whole network";
}

/** What a command granted the network gets on this machine. */
export function describeNetwork(status: SandboxStatus & { available: true }): string {
  if (status.kind === "sandbox-exec")
    return "a command granted the network reaches all of it except this machine's loopback";
  if (!status.network) return "network filter not checked";
  if (status.network.available)
    return "a command granted the network reaches the internet through slirp4netns, never this machine, loopback, private or link-local addresses";
  return `NO network filter: ${status.network.reason}, so commands that need the network are refused. Fix: ${status.network.fix}`;
}

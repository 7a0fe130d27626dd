import { describeSandbox } from "../../sandbox/describe.js";
import { detectSandbox } from "../../sandbox/detect.js";
import { describeCgroupLimits } from "../../sandbox/process-cgroup.js";
import type { Check, DoctorCheck } from "./types.js";

/** Whether commands run contained; without a sandbox, --yes refuses what is not provably read-only. */
export const sandboxCheck: DoctorCheck = (context) => {
  const sandbox = detectSandbox();
  const checks: Check[] = [
    sandbox.available
      ? { name: "sandbox", status: "ok", detail: describeSandbox(sandbox) }
      : {
          name: "sandbox",
          status: "warn",
          detail: `no OS sandbox for commands: ${sandbox.reason}; commands that are not provably read-only need approval and --yes refuses them`,
          fix: sandbox.fix,
        },
  ];
  // What bounds all of a command's processes together (cgroups where Mercury may make them).
  if (sandbox.available && sandbox.kind === "bubblewrap") {
    const limits = describeCgroupLimits();
    checks.push({
      name: "sandbox limits",
      // Root without a pids cgroup has no process-count limit at all: a warning. A memory limit per
      // process only is what most users' machines give (no delegated hierarchy): said, not warned.
      status: limits.includes("NOT limited") ? "warn" : "ok",
      detail: limits,
    });
  }
  // The network filter: without it a command granted the network is refused (or, by the user's
  // opt-in, gets the host's whole network), so doctor says which, with the fix.
  if (sandbox.available && sandbox.network && !sandbox.network.available) {
    const unfiltered = context.settings.config.sandbox.unfilteredNetwork === true;
    checks.push({
      name: "sandbox network filter",
      status: "warn",
      detail: unfiltered
        ? `${sandbox.network.reason}: commands and MCP servers granted the network get the host's WHOLE network (loopback, LAN, metadata services), because sandbox.unfilteredNetwork is true`
        : `${sandbox.network.reason}: commands and MCP servers that need the network are refused`,
      fix: sandbox.network.fix,
    });
  }
  return checks;
};

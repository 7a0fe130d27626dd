import { homedir } from "node:os";
import { detectSandbox } from "../sandbox/detect.js";
import { watchDiskSpace } from "../sandbox/disk-guard.js";
import { isSandboxError } from "../sandbox/errors.js";
import { guardGitState } from "../sandbox/git-guard.js";
import { networkPatternFor } from "../sandbox/network-grants.js";
import { type ProcessCgroup, processCgroup } from "../sandbox/process-cgroup.js";
import { defaultSandboxLimits, type Launch, type SandboxStatus } from "../sandbox/types.js";
import { workspaceRefusal } from "../sandbox/workspace.js";
import { absolutePath } from "./authorize-path.js";
import { type CommandRun, runInProcessGroup, scrubbedEnv } from "./process-group.js";
import { formatRun, type RunCommandInput, type RunCommandOptions } from "./run-command.js";
import type { ToolContext, ToolResult } from "./types.js";

/** run_command's call (run-command.ts holds its declaration and limits). */
export async function runCommandCall(
  input: RunCommandInput,
  context: ToolContext,
  limits: {
    options: RunCommandOptions;
    defaultTimeoutMs: number;
    maxTimeoutMs: number;
    killGraceMs: number;
    outputLimitBytes: number;
  },
): Promise<ToolResult> {
  const { options, defaultTimeoutMs, maxTimeoutMs, killGraceMs, outputLimitBytes } = limits;
  const sandboxStatus = options.sandbox?.status ?? (() => detectSandbox());
  const timeoutMs = input.timeoutMs ?? defaultTimeoutMs;
  if (timeoutMs > maxTimeoutMs) {
    return {
      ok: false,
      error: `timeoutMs ${timeoutMs} is above the limit of ${maxTimeoutMs} ms. Ask for at most ${maxTimeoutMs}, or split the work.`,
    };
  }
  const cwd = input.cwd ? absolutePath(input.cwd, context.cwd) : context.cwd;
  const decision = await context.authorize({ kind: "command", command: input.command, cwd });
  if (!decision.allowed) {
    return {
      ok: false,
      error: `Permission denied: the command was refused (${decision.rule}): ${decision.reason}`,
    };
  }
  const userHome = options.sandbox?.userHome ?? homedir();
  const refusal = workspaceRefusal(context.cwd, userHome, context.home);
  if (refusal) return { ok: false, error: `Not run: ${refusal}` };
  const status = sandboxStatus();
  // Network: granted by a person with this approval, or by the user's configuration. An
  // approval by --yes alone carries no network (the authorizer never sets it for allow-all).
  const configured = networkPatternFor(input.command, options.sandbox?.networkCommands ?? []);
  const network = decision.network === true || configured !== null;
  let launch: Launch | undefined;
  let sandboxLine: string;
  if (status.available) {
    // The launch builders (bubblewrap, seatbelt, masks, limits) load with the first command.
    const { sandboxLaunch } = await import("../sandbox/wrap.js");
    try {
      launch = sandboxLaunch(
        input.command,
        {
          workspace: context.cwd,
          cwd,
          userHome,
          mercuryHome: context.home,
          network,
          ...(options.sandbox?.allowUnfilteredNetwork ? { allowUnfilteredNetwork: true } : {}),
          limits: {
            ...(options.sandbox?.limits ?? defaultSandboxLimits),
            // A backstop a little past Mercury's own time limit (see limits.ts).
            ...(status.kind === "bubblewrap"
              ? { wallClockSeconds: Math.ceil((timeoutMs + killGraceMs) / 1000) + 5 }
              : {}),
          },
        },
        status,
      );
    } catch (error) {
      if (isSandboxError(error))
        return { ok: false, error: `Not run (sandbox ${error.kind}): ${error.message}` };
      throw error;
    }
    const grantedBy = decision.network === true ? "" : `, by sandbox.networkCommands "${configured}"`;
    sandboxLine = `sandbox: ${status.kind} (${network ? `${networkLine(status)}${grantedBy}` : "no network"})`;
  } else if (options.sandbox?.require) {
    return {
      ok: false,
      error: `Not run (sandbox unavailable): ${status.reason}. Fix: ${status.fix}`,
    };
  } else {
    sandboxLine = `sandbox: NONE, the command ran without OS containment (${status.reason}; fix: ${status.fix})`;
  }
  // Root is exempt from RLIMIT_NPROC: its commands get a pids cgroup where one can be made; every
  // command gets a memory cgroup for all its processes together where Mercury may make one.
  let cgroup: ProcessCgroup | null = null;
  if (launch && status.available && status.kind === "bubblewrap") {
    try {
      const limits = options.sandbox?.limits ?? defaultSandboxLimits;
      cgroup = processCgroup({
        processes: limits.processes,
        totalMemoryBytes: limits.totalMemoryBytes ?? defaultSandboxLimits.totalMemoryBytes,
      });
    } catch (error) {
      return { ok: false, error: `Not run (sandbox refused): ${String(error)}` };
    }
    if (cgroup) launch = cgroup.wrap(launch);
  }
  // What git would run later, outside the sandbox, is compared before and after (git-guard.ts).
  const gitGuard = decision.byPerson === true ? null : guardGitState(context.cwd);
  // A sandboxed command that drives the workspace's or Mercury's disk near full is stopped (disk-guard.ts).
  const diskFull = new AbortController();
  const disk = launch
    ? watchDiskSpace(
        [context.cwd, context.home],
        () => diskFull.abort(),
        (options.sandbox?.limits ?? defaultSandboxLimits).diskFloorBytes,
      )
    : null;
  let run: CommandRun;
  try {
    run = await runInProcessGroup(input.command, {
      cwd,
      timeoutMs,
      killGraceMs,
      signal: disk ? AbortSignal.any([context.signal, diskFull.signal]) : context.signal,
      env: { ...(options.env ?? scrubbedEnv()), ...(launch ? { TMPDIR: "/tmp" } : {}) },
      onOutput: (chunk) => context.reportActivity(chunk),
      outputLimitBytes,
      ...(launch ? { launch } : {}),
    });
  } catch (error) {
    return { ok: false, error: error instanceof Error ? error.message : String(error) };
  } finally {
    disk?.stop();
    const leftover = await cgroup?.release();
    if (leftover) process.emitWarning(`mercury: ${leftover}`);
  }
  const putBack = gitGuard?.check() ?? null;
  const report = formatRun(run, timeoutMs, sandboxLine);
  if (putBack) return { ok: false, error: `${putBack}\n${report}` };
  const diskReason = disk?.reason();
  if (diskReason) return { ok: false, error: `Stopped: ${diskReason}.\n${report}` };
  if (run.limitExceeded === "output")
    return {
      ok: false,
      error: `Stopped: the output passed the limit of ${outputLimitBytes} bytes.\n${report}`,
    };
  if (run.aborted)
    return { ok: false, error: `Cancelled: the task was aborted; the command was stopped.\n${report}` };
  if (run.timedOut) return { ok: false, error: report };
  return run.exitCode === 0 ? { ok: true, output: report } : { ok: false, error: report };
}

function networkLine(status: SandboxStatus): string {
  if (status.available && status.kind === "bubblewrap" && status.network?.available)
    return "network granted, filtered: no loopback, private or link-local addresses";
  if (status.available && status.kind === "sandbox-exec") return "network granted: loopback refused";
  return "network granted: the host's whole network (sandbox.unfilteredNetwork is on)";
}

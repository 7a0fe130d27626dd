import { bubblewrapLaunch } from "./bubblewrap.js";
import { linuxSandboxTools } from "./detect.js";
import { diskFloors, diskWatchedLaunch, type WatchedFolder } from "./disk-guard.js";
import { SandboxRefusedError, SandboxUnavailableError } from "./errors.js";
import { secretMasks } from "./masks.js";
import { filteredNetworkLaunch } from "./network-filter.js";
import { type ProcessCgroup, processCgroup, selfManagedCgroup } from "./process-cgroup.js";
import { seatbeltLaunch } from "./seatbelt.js";
import { sandboxEntry } from "./seccomp.js";
import { bwrapSizesTmpfs } from "./tmpfs-size.js";
import type { Launch, SandboxPolicy, SandboxStatus } from "./types.js";
import { realOrResolved, workspaceRefusal } from "./workspace.js";

/**
 * How to start `command` inside the OS sandbox that `status` names. Throws SandboxUnavailableError
 * when there is none (the caller must not fall back to running it bare on its own), and
 * SandboxRefusedError when the workspace is one the sandbox never makes writable.
 */
export function sandboxLaunch(command: string, policy: SandboxPolicy, status: SandboxStatus): Launch {
  // run_command makes and releases the command's cgroups itself (tools/run-command-exec.ts).
  return containedLaunch(["/bin/sh", "-c", command], policy, status);
}

/**
 * The same for a program and its arguments, without a shell (Mercury's own git calls, MCP servers),
 * with the limits on all its processes together (pids and memory cgroups) that run_command's commands
 * get: the groups are made and removed around the program by a shell of their own (process-cgroup.ts).
 */
export function sandboxProgramLaunch(argv: string[], policy: SandboxPolicy, status: SandboxStatus): Launch {
  const contained = containedLaunch(argv, policy, status);
  if (status.available && status.kind === "bubblewrap") {
    // The disk floor of run_command, for programs Mercury does not wait on (session 11: an MCP
    // server could fill the disk through its own folder). Inside the cgroups, so it counts in them.
    const watched = diskFloors(
      [policy.workspace, ...(policy.extraWritable ?? []), policy.mercuryHome],
      policy.limits.diskFloorBytes,
    );
    const launch = diskWatchedLaunch(contained, watched) ?? contained;
    const inGroups = selfManagedCgroup({
      processes: policy.limits.processes,
      ...(policy.limits.totalMemoryBytes !== undefined
        ? { totalMemoryBytes: policy.limits.totalMemoryBytes }
        : {}),
    });
    if (inGroups) return inGroups(launch);
    return launch;
  }
  return contained;
}

/** A launch for a program Mercury waits for, with the handles that hold it (see sandboxWaitedLaunch). */
export interface WaitedLaunch {
  launch: Launch;
  /** The groups the launch enters; the caller releases them once the program has ended. */
  cgroup: ProcessCgroup | null;
  /** The file systems whose floor the caller watches while the program runs (watchFloors). */
  watched: WatchedFolder[];
}

/**
 * The same containment as sandboxProgramLaunch for a program Mercury waits for (its own git calls),
 * without the two shells that a program nobody waits for needs: the cgroups are made with fs calls
 * here and joined by a one-line enter script (processCgroup), and the disk floor is watched by the
 * caller in Node (watchFloors), so no `mkdir`, `rmdir`, `sleep` or `stat` runs per call. The caller
 * must kill the launch with SIGKILL when the floor trips (bwrap's --die-with-parent then takes the
 * sandbox down) and release the groups after it ends.
 */
export function sandboxWaitedLaunch(
  argv: string[],
  policy: SandboxPolicy,
  status: SandboxStatus,
): WaitedLaunch {
  const contained = containedLaunch(argv, policy, status);
  if (!(status.available && status.kind === "bubblewrap"))
    return { launch: contained, cgroup: null, watched: [] };
  const watched = diskFloors(
    [policy.workspace, ...(policy.extraWritable ?? []), policy.mercuryHome],
    policy.limits.diskFloorBytes,
  );
  const cgroup = processCgroup({
    processes: policy.limits.processes,
    ...(policy.limits.totalMemoryBytes !== undefined
      ? { totalMemoryBytes: policy.limits.totalMemoryBytes }
      : {}),
  });
  return { launch: cgroup ? cgroup.wrap(contained) : contained, cgroup, watched };
}

function containedLaunch(argv: string[], policy: SandboxPolicy, status: SandboxStatus): Launch {
  if (!status.available) throw new SandboxUnavailableError(status.reason, status.fix);
  const refusal = workspaceRefusal(policy.workspace, policy.userHome, policy.mercuryHome);
  if (refusal) throw new SandboxRefusedError(refusal);
  for (const extra of policy.extraWritable ?? []) {
    const extraRefusal = workspaceRefusal(extra, policy.userHome, policy.mercuryHome);
    if (extraRefusal) throw new SandboxRefusedError(extraRefusal);
  }
  const given = [
    policy.workspace,
    policy.cwd,
    ...(policy.extraWritable ?? []),
    ...(policy.extraReadable ?? []),
  ];
  const masks = secretMasks(policy.userHome, policy.mercuryHome, process.env, given.map(realOrResolved));
  if (status.kind === "sandbox-exec") return seatbeltLaunch(policy, masks, argv);
  const tools = linuxSandboxTools();
  if (!tools) throw new SandboxUnavailableError("bubblewrap was found unusable", "run `mercury doctor`");
  const tmpfsSize = bwrapSizesTmpfs(tools.bwrap);
  // Every bwrap launch carries the seccomp filter and closes inherited descriptors (seccomp.ts).
  if (!policy.network)
    return sandboxEntry(bubblewrapLaunch({ policy, argv, masks, bwrap: tools.bwrap, tmpfsSize }));
  const filter = status.network;
  if (filter?.available && tools.network) {
    const uid = process.getuid?.() ?? 0;
    const gid = process.getgid?.() ?? 0;
    const root = uid === 0;
    const bwrap = sandboxEntry(
      bubblewrapLaunch({
        policy,
        argv,
        masks,
        bwrap: tools.bwrap,
        tmpfsSize,
        networkMode: "filtered",
        ...(root ? {} : { runAs: { uid, gid } }),
      }),
      [5],
    );
    return filteredNetworkLaunch({ bwrap, tools: tools.network, root });
  }
  // Never the host's network by accident: only the user's explicit opt-in gives it.
  if (policy.allowUnfilteredNetwork)
    return sandboxEntry(
      bubblewrapLaunch({ policy, argv, masks, bwrap: tools.bwrap, tmpfsSize, networkMode: "host" }),
    );
  throw new SandboxUnavailableError(
    `this command was granted the network, and Mercury gives network only through its filter (no loopback, no private ranges), which cannot run here: ${filter && !filter.available ? filter.reason : "its programs were not found"}`,
    filter && !filter.available ? filter.fix : "run `mercury doctor`",
  );
}

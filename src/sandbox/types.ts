/** Whether commands can be contained on this machine, and if not, what to do about it. */
export type SandboxStatus =
  | { available: true; kind: "bubblewrap" | "sandbox-exec"; network?: NetworkFilterStatus }
  | { available: false; reason: string; fix: string };

/**
 * Whether a command granted the network gets it filtered (no loopback, private or link-local
 * ranges, none of this machine's addresses). Linux: slirp4netns in a network namespace of its own.
 */
export type NetworkFilterStatus =
  | { available: true; kind: "slirp4netns" }
  | { available: false; reason: string; fix: string };

/** Resource limits applied to every process of a sandboxed command (inherited by its children). */
export interface SandboxLimits {
  /** Private writable memory per process (RLIMIT_DATA), bytes. */
  memoryBytes: number;
  /** Largest file a process may write (RLIMIT_FSIZE), bytes. */
  fileSizeBytes: number;
  /** Open files per process (RLIMIT_NOFILE). */
  openFiles: number;
  /**
   * Processes and threads of the command together: RLIMIT_NPROC, counted per user namespace, so it
   * holds for a user's command; for root, a pids cgroup where one can be made (process-cgroup.ts).
   */
  processes: number;
  /**
   * Linux: memory of all the command's processes together (their tmpfs pages included), bytes: a
   * memory cgroup where Mercury may make one (process-cgroup.ts; `doctor` says whether it can).
   */
  totalMemoryBytes?: number;
  /** Linux: the whole command is killed after this many seconds even if Mercury is gone (coreutils `timeout`). */
  wallClockSeconds?: number;
  /**
   * Linux: size of the private /tmp and of /dev/shm, bytes each (memory-backed; /run gets a small
   * fixed size). Without it a command could fill them with many files, each under fileSizeBytes.
   */
  tmpBytes?: number;
  /**
   * Free space kept on the disks of the workspace and MERCURY_HOME while the command runs, bytes: the
   * command is stopped below it (disk-guard.ts). Default: the larger of 1 GiB and 2% of the disk,
   * never more than half of what was free at the start.
   */
  diskFloorBytes?: number;
}

export const defaultSandboxLimits: SandboxLimits = {
  memoryBytes: 8 * 1024 ** 3,
  fileSizeBytes: 4 * 1024 ** 3,
  openFiles: 4096,
  processes: 4096,
  totalMemoryBytes: 8 * 1024 ** 3,
  tmpBytes: 2 * 1024 ** 3,
};

/** What one sandboxed command may see and touch. Every path is absolute. */
export interface SandboxPolicy {
  /** The task's working directory: the only host folder the command may write. */
  workspace: string;
  /** Where the command starts (inside or outside the workspace; outside it is read-only). */
  cwd: string;
  /** The user's home directory ($HOME). */
  userHome: string;
  /** MERCURY_HOME: masked, except its skills/ folder (read-only). */
  mercuryHome: string;
  /** Other folders Mercury itself needs writable (a git directory outside the workspace, a scratch folder). */
  extraWritable?: string[];
  /**
   * Host folders under the hidden /tmp or /run that the program itself lives in (an MCP server's
   * package named by its configured command): shown read-only, nothing else of /tmp.
   */
  extraReadable?: string[];
  /** True for a program that must see none of MERCURY_HOME, not even skills/ (an MCP server). */
  hideSkills?: boolean;
  /** True only when the approved command needs the network (then filtered, see NetworkFilterStatus). */
  network: boolean;
  /**
   * The user's explicit opt-in (config `sandbox.unfilteredNetwork`): with no network filter on this
   * machine, a command granted the network gets the host's network instead of being refused.
   */
  allowUnfilteredNetwork?: boolean;
  limits: SandboxLimits;
}

/** A program and its arguments, ready for spawn. */
export interface Launch {
  file: string;
  args: string[];
}

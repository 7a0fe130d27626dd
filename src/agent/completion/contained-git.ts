import { mkdtemp, rm } from "node:fs/promises";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { mercuryHome } from "../../config/paths.js";
import { detectSandbox } from "../../sandbox/detect.js";
import { watchFloors } from "../../sandbox/disk-guard.js";
import { gitFolderRefusal } from "../../sandbox/git-folders.js";
import {
  containedGitOverrides,
  driverNameQuery,
  hostGitEnvironment,
  hostGitOverrides,
  neutralizedDrivers,
  withoutExternalDiff,
} from "../../sandbox/host-git.js";
import { defaultSandboxLimits, type SandboxLimits, type SandboxStatus } from "../../sandbox/types.js";
import { realOrResolved, workspaceRefusal } from "../../sandbox/workspace.js";
import { type ExecResult, execProgram } from "./exec.js";

/** Where Mercury's own git calls are contained: the same sandbox as the agent's commands. */
export interface GitContainment {
  userHome: string;
  mercuryHome: string;
  status?: () => SandboxStatus;
  /** The sandbox's limits for these calls (the disk floor, the cgroups); the defaults unless given. */
  limits?: SandboxLimits;
}

export interface ContainedGitOptions {
  top: string;
  scratch?: string[];
  gitFolders?: string[];
  env?: NodeJS.ProcessEnv;
  timeoutMs?: number;
  containment: GitContainment;
}

export function defaultGitContainment(): GitContainment {
  return { userHome: homedir(), mercuryHome: mercuryHome() };
}

/**
 * Runs git for the change tracker. The repository is the agent's to write (its `.git/config` and
 * `.gitattributes` included), and `git add` runs programs those name (core.fsmonitor, clean filters,
 * the `post-index-change` hook): so git runs in the OS sandbox with `top` writable, secrets hidden and
 * no secret in its environment. `scratch` is Mercury's own (a temporary index); `gitFolders` are the
 * repository's answer to rev-parse, bound writable only inside `top` or as its genuine linked
 * worktree (sandbox/git-folders.ts), else the call is refused. Where `top` may not be a workspace (a
 * home folder under git, or a folder whose name the sandbox protects), git still runs contained,
 * with `top` read-only: session 9 found that the bare run there let a planted repository's hook and
 * clean filter run on the host. Only without any sandbox does it run bare, with the fsmonitor hook
 * and hooks switched off; a clean filter named by the repository would still run there (see
 * docs/ARCHITECTURE.md). Session 11: that bare run now also switches off every filter, diff and
 * merge driver the effective config names, hooks, fsmonitor and lazy fetch, and drops inherited
 * GIT_* variables (sandbox/host-git.ts); inside the sandbox the GIT_* variables are dropped and
 * lazy fetch is off, while filters and hooks still run there, contained (git-lfs needs its clean
 * filter to hash what a commit would).
 */
export async function runContainedGit(given: string[], options: ContainedGitOptions): Promise<ExecResult> {
  return runContainedProgram(["git", "--no-pager", ...withoutExternalDiff(given)], options);
}

/**
 * The same containment for a program of Mercury's own that runs git (git-batch.ts: a fixed shell
 * script that runs several git commands in one launch, its data as arguments). Without a sandbox it
 * runs bare with the same neutralized drivers in its environment, which every git it starts inherits.
 */
export async function runContainedProgram(argv: string[], options: ContainedGitOptions): Promise<ExecResult> {
  const [program = "git", ...programArgs] = argv;
  const env = { ...hostGitEnvironment(containedGitOverrides), ...options.env };
  const { containment } = options;
  const status = containment.status?.() ?? detectSandbox();
  const timing = options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {};
  if (!status.available) {
    // Reading config runs nothing (no index, no attributes, no hooks); what it names is switched off.
    const names = await execProgram("git", driverNameQuery, { cwd: options.top, env, ...timing });
    // Exit 1: no such key. Anything else is a config git cannot read, and git must not run on it.
    if (names.code !== 0 && names.code !== 1)
      throw new Error(`git cannot read the repository's config: ${names.stderr.trim()}`);
    const bare = {
      ...hostGitEnvironment([...hostGitOverrides, ...neutralizedDrivers(names.stdout)]),
      ...options.env,
    };
    return execProgram(program, programArgs, { cwd: options.top, env: bare, ...timing });
  }
  const folderRefusal = gitFolderRefusal(options.top, options.gitFolders ?? []);
  if (folderRefusal) throw new Error(folderRefusal);
  const topRefusal = workspaceRefusal(options.top, containment.userHome, containment.mercuryHome);
  // `/` shown read-only would bring the host's /tmp and /run (sockets) back over the sandbox's own.
  if (topRefusal && realOrResolved(options.top) === "/")
    throw new Error(`the repository names / as its top folder: Mercury does not run git there`);
  // A refused `top` is shown read-only: the writable workspace is then an empty folder of Mercury's own.
  const stand = topRefusal ? await mkdtemp(join(tmpdir(), "mercury-git-")) : null;
  try {
    // The launch builders load with the first git call (the first change the tracker looks at), not
    // with the agent: a task's first model request does not wait for them.
    const { sandboxWaitedLaunch } = await import("../../sandbox/wrap.js");
    const { launch, cgroup, watched } = sandboxWaitedLaunch(
      argv,
      {
        workspace: stand ?? options.top,
        cwd: options.top,
        userHome: containment.userHome,
        mercuryHome: containment.mercuryHome,
        network: false,
        limits: containment.limits ?? defaultSandboxLimits,
        extraWritable: [...(options.scratch ?? []), ...(options.gitFolders ?? [])],
      },
      status,
    );
    // The disk floor of run_command (session 11): a clean filter or hook that fills the disk is
    // stopped. SIGKILL reaches bwrap itself (the enter scripts exec it), whose --die-with-parent
    // takes the whole sandbox down.
    const diskLow = new AbortController();
    const guard = watched.length > 0 ? watchFloors(watched, () => diskLow.abort()) : null;
    try {
      return await execProgram(launch.file, launch.args, {
        cwd: options.top,
        env,
        killSignal: "SIGKILL",
        ...(guard ? { signal: diskLow.signal } : {}),
        ...timing,
      });
    } catch (error) {
      const reason = guard?.reason();
      if (reason) return { code: null, stdout: "", stderr: `mercury: stopped: ${reason}` };
      throw error;
    } finally {
      guard?.stop();
      const leftover = await cgroup?.release();
      if (leftover) process.emitWarning(`mercury: ${leftover}`);
    }
  } finally {
    if (stand) await rm(stand, { recursive: true, force: true });
  }
}

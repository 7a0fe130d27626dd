import { existsSync, realpathSync, statSync } from "node:fs";
import { join } from "node:path";
import { limitPrologue } from "./limits.js";
import type { Mask } from "./masks.js";
import { procGuardArgs } from "./proc-guard.js";
import { unsetSecretEnvArgs } from "./secret-env.js";
import { defaultSandboxLimits, type Launch, type SandboxPolicy } from "./types.js";
import { isInside, realOrResolved } from "./workspace.js";

export interface BubblewrapInput {
  policy: SandboxPolicy;
  /** The program and its arguments to run inside (a shell command is `/bin/sh -c COMMAND`). */
  argv: string[];
  masks: Mask[];
  bwrap: string;
  /**
   * How a command granted the network gets it: `filtered` leaves the network namespace to the
   * supervisor (network-filter.ts) and reads resolv.conf (slirp's DNS forwarder) from fd 5; `host`
   * shares the host's network (only by the user's explicit opt-in). Ignored without network.
   */
  networkMode?: "filtered" | "host";
  /**
   * Run the command as this user in a user namespace of its own. Needed when bwrap starts as root
   * of the filtered network's user namespace (Mercury itself not root): the command then runs as
   * the user again, not as that namespace's root.
   */
  runAs?: { uid: number; gid: number };
  /** This bwrap takes `--size` for a tmpfs (tmpfs-size.ts): /tmp, /dev/shm and /run get sizes. */
  tmpfsSize?: boolean;
}

/** /run holds only sockets and small state files; a few MiB are plenty. */
const runBytes = 16 * 1024 ** 2;

/**
 * The bwrap command line for one command. Mount order matters (a later mount covers an earlier
 * one): the read-only root, fresh /dev, /proc (new pid namespace), /tmp and /run; Mercury's home
 * hidden; the workspace writable; then the secret masks, so that a secret inside the workspace stays
 * hidden too. Namespaces: pid, ipc, uts, cgroup, and network: a fresh one with nothing in it, or, for a
 * command granted the network, the filtered one the supervisor built (network-filter.ts).
 */
export function bubblewrapLaunch(input: BubblewrapInput): Launch {
  const { policy } = input;
  const workspace = realOrResolved(policy.workspace);
  const cwd = realOrResolved(policy.cwd);
  const mercuryHome = realOrResolved(policy.mercuryHome);
  const tmpBytes = policy.limits.tmpBytes ?? defaultSandboxLimits.tmpBytes ?? 0;
  const size = (bytes: number): string[] => (input.tmpfsSize ? ["--size", String(bytes)] : []);
  const args: string[] = ["--ro-bind", "/", "/", "--dev", "/dev"];
  // bwrap's /dev is one unsized tmpfs: /dev/shm gets a sized one of its own.
  if (input.tmpfsSize) args.push(...size(tmpBytes), "--tmpfs", "/dev/shm");
  // The fresh /proc read-only with host-wide files hidden (proc-guard.ts: as root, /proc/sys was writable).
  args.push("--proc", "/proc", ...procGuardArgs(), ...size(tmpBytes), "--tmpfs", "/tmp");
  // /run holds the sockets of system services (D-Bus, systemd, docker): connecting to a socket is not
  // a write, so a read-only mount would not stop it. DNS may need resolv.conf from there.
  args.push(...size(runBytes), "--tmpfs", "/run");
  const networkMode = policy.network ? (input.networkMode ?? "filtered") : "none";
  if (networkMode === "host") args.push(...resolvConfBack());
  for (const readable of policy.extraReadable ?? [])
    if (existsSync(readable)) args.push("--ro-bind", realOrResolved(readable), realOrResolved(readable));

  // A start folder outside the workspace is shown read-only, before Mercury's home is hidden (a home
  // folder as git's read-only top holds it) and before the writable binds (a git folder inside it
  // stays writable: contained-git.ts).
  if (!isInside(cwd, workspace) && cwd !== workspace && existsSync(cwd)) args.push("--ro-bind", cwd, cwd);
  const mercuryInsideWorkspace = isInside(mercuryHome, workspace);
  if (!mercuryInsideWorkspace) args.push(...hideMercuryHome(mercuryHome, policy.hideSkills === true));
  args.push("--bind", workspace, workspace);
  for (const extra of policy.extraWritable ?? [])
    args.push("--bind", realOrResolved(extra), realOrResolved(extra));
  args.push(...readOnlyHooks(workspace));
  for (const mask of input.masks) {
    if (isInside(mask.path, mercuryHome)) continue; // already hidden with all of Mercury's home
    if (mask.type === "directory") args.push("--tmpfs", mask.path, "--remount-ro", mask.path);
    else args.push("--ro-bind", "/dev/null", mask.path);
  }
  if (mercuryInsideWorkspace) args.push(...hideMercuryHome(mercuryHome, policy.hideSkills === true));
  if (existsSync(mercuryHome)) args.push("--remount-ro", mercuryHome);
  // Last, so no later mount (the /run tmpfs) covers it: the real file behind /etc/resolv.conf.
  if (networkMode === "filtered" && existsSync("/etc/resolv.conf"))
    args.push("--ro-bind-data", "5", realOrResolved("/etc/resolv.conf"));

  if (input.runAs)
    args.push("--unshare-user", "--uid", String(input.runAs.uid), "--gid", String(input.runAs.gid));
  args.push("--unshare-pid", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try");
  // A filtered network is a namespace of its own too, made by the supervisor before bwrap starts.
  if (networkMode === "none") args.push("--unshare-net");
  args.push("--die-with-parent", "--new-session", "--cap-drop", "ALL", "--chdir", cwd);
  // Credentials by name that the tools' environment filter lets through (secret-env.ts).
  args.push(...unsetSecretEnvArgs());
  // The limits are set by the shell before it runs the command (an exec of prlimit cost ~15 ms more).
  args.push("--", "/bin/sh", "-c", limitPrologue(policy.limits), "sh", ...input.argv);
  return { file: input.bwrap, args };
}

/**
 * The workspace repository's hooks folder, read-only: a hook runs later, outside the sandbox, when
 * the user commits. A missing one gets an empty read-only folder (what `git init` would make), so the
 * command cannot create it either. Commits, branches and objects stay writable.
 */
function readOnlyHooks(workspace: string): string[] {
  const gitFolder = join(workspace, ".git");
  if (!isDirectory(gitFolder)) return [];
  const hooks = join(gitFolder, "hooks");
  if (isDirectory(hooks)) return ["--ro-bind", hooks, hooks];
  if (existsSync(hooks)) return [];
  return ["--tmpfs", hooks, "--remount-ro", hooks];
}

function hideMercuryHome(mercuryHome: string, hideSkills: boolean): string[] {
  if (!existsSync(mercuryHome)) return [];
  const args = ["--tmpfs", mercuryHome];
  if (hideSkills) return args;
  const skills = join(mercuryHome, "skills");
  if (isDirectory(skills)) args.push("--ro-bind", realpathSync(skills), skills);
  return args;
}

/** With /run hidden, a resolv.conf that points into it (systemd-resolved) is bound back, read-only. */
function resolvConfBack(): string[] {
  const target = realOrResolved("/etc/resolv.conf");
  if (!isInside(target, "/run") || !existsSync(target)) return [];
  return ["--ro-bind", target, target];
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    // Missing: no skills folder to show.
    return false;
  }
}

import { spawn, spawnSync } from "node:child_process";
import { accessSync, constants } from "node:fs";
import { delimiter, join } from "node:path";
import type { NetworkFilterTools } from "./network-filter.js";
import type { NetworkFilterStatus, SandboxStatus } from "./types.js";

export type { SandboxStatus } from "./types.js";

export interface DetectOptions {
  platform?: NodeJS.Platform;
  /** Where to look for programs; default: this process's PATH. */
  path?: string;
}

/** The programs the Linux sandbox runs, resolved to absolute paths. */
export interface LinuxTools {
  bwrap: string;
  /** The filtered network's programs; null when one is missing (then status.network says which). */
  network: NetworkFilterTools | null;
}

type Detection = { status: SandboxStatus; tools: LinuxTools | null };

const cache = new Map<string, Detection>();
const pending = new Map<string, Promise<Detection>>();

/**
 * Whether this machine can contain commands. On Linux bubblewrap must be installed and actually able
 * to build a sandbox here (it probes once with the same namespaces a command gets: user namespaces
 * can be switched off by the kernel or a container); on macOS `/usr/bin/sandbox-exec` must exist.
 * Cached per PATH: it runs on every command.
 */
export function detectSandbox(options: DetectOptions = {}): SandboxStatus {
  return detectWithTools(options).status;
}

export function linuxSandboxTools(options: DetectOptions = {}): LinuxTools | null {
  return detectWithTools(options).tools;
}

/**
 * The same answer without blocking: the trial sandbox runs as a child while this process goes on
 * (`mercury run` starts it at task start and needs it only at the first tool call, so it no longer
 * sits before the first model request). Fills the cache the synchronous form reads.
 */
export function detectSandboxSoon(options: DetectOptions = {}): Promise<SandboxStatus> {
  const platform = options.platform ?? process.platform;
  const searchPath = options.path ?? process.env.PATH ?? "";
  const key = `${platform}\0${searchPath}`;
  const cached = cache.get(key);
  if (cached) return Promise.resolve(cached.status);
  let running = pending.get(key);
  if (!running) {
    running = probeSoon(platform, searchPath).then((result) => {
      // A synchronous probe may have finished first; keep one answer.
      const settled = cache.get(key) ?? result;
      cache.set(key, settled);
      pending.delete(key);
      return settled;
    });
    pending.set(key, running);
  }
  return running.then((result) => result.status);
}

function detectWithTools(options: DetectOptions): Detection {
  const platform = options.platform ?? process.platform;
  const searchPath = options.path ?? process.env.PATH ?? "";
  const key = `${platform}\0${searchPath}`;
  const cached = cache.get(key);
  if (cached) return cached;
  const result = probe(platform, searchPath);
  cache.set(key, result);
  return result;
}

/** The bwrap trial: the namespaces a command gets, around /bin/true. */
const trialArguments = [
  "--ro-bind",
  "/",
  "/",
  "--dev",
  "/dev",
  "--proc",
  "/proc",
  "--unshare-all",
  "--cap-drop",
  "ALL",
  "--die-with-parent",
  "--",
  "/bin/true",
];
const trialTimeoutMs = 10_000;

interface TrialResult {
  error?: Error;
  status: number | null;
  stderr: string;
}

function probe(platform: NodeJS.Platform, searchPath: string): Detection {
  const found = beforeTrial(platform, searchPath);
  if ("status" in found) return found;
  const trial = spawnSync(found.bwrap, trialArguments, { encoding: "utf8", timeout: trialTimeoutMs });
  return afterTrial(found.bwrap, searchPath, {
    ...(trial.error ? { error: trial.error } : {}),
    status: trial.status,
    stderr: trial.stderr ?? "",
  });
}

async function probeSoon(platform: NodeJS.Platform, searchPath: string): Promise<Detection> {
  const found = beforeTrial(platform, searchPath);
  if ("status" in found) return found;
  const trial = await new Promise<TrialResult>((settle) => {
    const child = spawn(found.bwrap, trialArguments, {
      stdio: ["ignore", "ignore", "pipe"],
      timeout: trialTimeoutMs,
    });
    let stderr = "";
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk;
    });
    child.on("error", (error) => settle({ error, status: null, stderr }));
    child.on("close", (status) => settle({ status, stderr }));
  });
  return afterTrial(found.bwrap, searchPath, trial);
}

/** Everything but the trial: the platform's answer, or the bwrap to try. */
function beforeTrial(platform: NodeJS.Platform, searchPath: string): Detection | { bwrap: string } {
  if (platform === "darwin") {
    if (isExecutable("/usr/bin/sandbox-exec"))
      return { status: { available: true, kind: "sandbox-exec" }, tools: null };
    return {
      status: {
        available: false,
        reason: "/usr/bin/sandbox-exec is missing",
        fix: "use macOS 10.15 or newer",
      },
      tools: null,
    };
  }
  if (platform !== "linux") {
    return {
      status: {
        available: false,
        reason: `no OS sandbox is supported on ${platform}`,
        fix: "run Mercury on Linux (with bubblewrap) or macOS",
      },
      tools: null,
    };
  }
  const bwrap = findProgram("bwrap", searchPath);
  if (!bwrap) {
    return {
      status: {
        available: false,
        reason: "bubblewrap (bwrap) is not installed",
        fix: "install it: `sudo apt-get install bubblewrap` (Debian/Ubuntu) or `sudo dnf install bubblewrap` (Fedora)",
      },
      tools: null,
    };
  }
  return { bwrap };
}

function afterTrial(bwrap: string, searchPath: string, trial: TrialResult): Detection {
  if (trial.error || trial.status !== 0) {
    const detail = (trial.error?.message ?? trial.stderr ?? "").trim() || `exit code ${trial.status}`;
    return {
      status: {
        available: false,
        reason: `bubblewrap is installed (${bwrap}) but cannot create a sandbox here: ${detail}`,
        fix: "allow unprivileged user namespaces (`sudo sysctl -w kernel.unprivileged_userns_clone=1`, or on Ubuntu 24.04+ `sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0`), or run Mercury outside a container that forbids them",
      },
      tools: null,
    };
  }
  const network = networkFilter(searchPath);
  return {
    status: { available: true, kind: "bubblewrap", network: network.status },
    tools: { bwrap, network: network.tools },
  };
}

/**
 * The programs of the filtered network: slirp4netns (Debian package `slirp4netns`), and from
 * util-linux and iproute2, present on nearly every Linux: unshare, setpriv, ip. Only presence is
 * checked here; a network that cannot be built fails that command with slirp4netns's own error.
 */
function networkFilter(searchPath: string): {
  status: NetworkFilterStatus;
  tools: NetworkFilterTools | null;
} {
  const found = {
    slirp4netns: findProgram("slirp4netns", searchPath),
    unshare: findProgram("unshare", searchPath),
    setpriv: findProgram("setpriv", searchPath),
    ip:
      findProgram("ip", searchPath) ??
      findProgram("ip", `${searchPath}${delimiter}/usr/sbin${delimiter}/sbin`),
  };
  const missing = Object.entries(found)
    .filter(([, path]) => path === null)
    .map(([name]) => name);
  if (found.slirp4netns && found.unshare && found.setpriv && found.ip && missing.length === 0) {
    return {
      status: { available: true, kind: "slirp4netns" },
      tools: { slirp4netns: found.slirp4netns, unshare: found.unshare, setpriv: found.setpriv, ip: found.ip },
    };
  }
  const packages = missing.map((name) => networkPackages[name] ?? name);
  return {
    status: {
      available: false,
      reason: `the network filter needs ${missing.join(", ")}, not found on PATH`,
      fix: `install it: \`sudo apt-get install ${[...new Set(packages)].join(" ")}\` (Debian/Ubuntu) or \`sudo dnf install ${[...new Set(packages)].join(" ")}\` (Fedora); until then commands that need the network are refused, unless you set sandbox.unfilteredNetwork: true in config.yaml to give them the host's whole network`,
    },
    tools: null,
  };
}

const networkPackages: Record<string, string> = {
  slirp4netns: "slirp4netns",
  unshare: "util-linux",
  setpriv: "util-linux",
  ip: "iproute2",
};

function findProgram(name: string, searchPath: string): string | null {
  for (const directory of searchPath.split(delimiter)) {
    if (directory === "") continue;
    const candidate = join(directory, name);
    if (isExecutable(candidate)) return candidate;
  }
  return null;
}

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    // Not there or not executable: both mean "not this one"; the caller reports what is missing.
    return false;
  }
}

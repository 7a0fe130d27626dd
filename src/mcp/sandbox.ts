import { existsSync, statSync } from "node:fs";
import { dirname, isAbsolute, join } from "node:path";
import { detectSandbox } from "../sandbox/detect.js";
import { isSandboxError } from "../sandbox/errors.js";
import { defaultSandboxLimits, type SandboxStatus } from "../sandbox/types.js";
import { sandboxProgramLaunch } from "../sandbox/wrap.js";
import { McpError } from "./errors.js";
import type { LaunchWrapper, StdioLaunch } from "./launch.js";

export interface McpSandboxOptions {
  /** MERCURY_HOME: hidden from the server, all but its own `mcp/<name>/` folder. */
  mercuryHome: string;
  /** The user's home: its secret folders (~/.ssh, ~/.aws, …) are masked. */
  userHome: string;
  /** Which sandbox this machine has; default: detectSandbox() (tests pass an unavailable one). */
  status?: () => SandboxStatus;
  /** The user's opt-in (config `sandbox.unfilteredNetwork`): the host's network when no filter can run. */
  allowUnfilteredNetwork?: boolean;
}

/**
 * The OS sandbox profile of a stdio MCP server: the file system read-only, MERCURY_HOME hidden
 * (skills/ too) except the server's writable `$MERCURY_HOME/mcp/<name>/`, the user's secret folders
 * masked, its own pid namespace, and the filtered network (a server usually needs the internet): no
 * loopback, private or link-local address, none of this machine's own (network-filter.ts). With
 * no filter on the machine the start is refused unless the user opted into the unfiltered network.
 * No sandbox on the machine: the start is refused (the caller only skips this wrapper for a server
 * configured `sandbox: false`); never a silent unsandboxed start.
 */
export function mcpSandboxWrapper(options: McpSandboxOptions): LaunchWrapper {
  return (launch: StdioLaunch, server: string): StdioLaunch => {
    const status = options.status?.() ?? detectSandbox();
    if (!status.available) {
      throw new McpError(
        "config",
        `MCP server ${server} runs inside the OS sandbox by default, and there is none here: ${status.reason}. Fix: ${status.fix}; or, to run this server without the sandbox, set mcp.servers.${server}.sandbox: false in config.yaml`,
      );
    }
    try {
      const wrapped = sandboxProgramLaunch(
        [launch.command, ...launch.args],
        {
          workspace: launch.stateDirectory,
          cwd: launch.cwd,
          userHome: options.userHome,
          mercuryHome: options.mercuryHome,
          hideSkills: true,
          extraReadable: programFolders([launch.command, ...launch.args]),
          network: true,
          ...(options.allowUnfilteredNetwork ? { allowUnfilteredNetwork: true } : {}),
          // No wall-clock limit: a server runs as long as Mercury does.
          limits: defaultSandboxLimits,
        },
        status,
      );
      return { ...launch, command: wrapped.file, args: wrapped.args };
    } catch (error) {
      if (isSandboxError(error))
        throw new McpError("config", `MCP server ${server} cannot be sandboxed: ${error.message}`);
      throw error;
    }
  };
}

/** The sandbox gives every program a private, empty /tmp (and /run). */
const hiddenTrees = ["/tmp", "/run"];

/**
 * What the server's own command line names under a hidden tree (a server unpacked in /tmp): the
 * package folder of each such path (the nearest folder with a package.json, else the path's own
 * folder), so the program and its modules load. Never a hidden tree itself.
 */
export function programFolders(words: readonly string[]): string[] {
  const folders = new Set<string>();
  for (const word of words) {
    if (!isAbsolute(word) || !existsSync(word)) continue;
    const tree = hiddenTrees.find((root) => word.startsWith(`${root}/`));
    if (!tree) continue;
    const start = statSync(word).isDirectory() ? word : dirname(word);
    let folder = start;
    while (folder !== tree && !existsSync(join(folder, "package.json"))) folder = dirname(folder);
    folders.add(folder === tree ? start : folder);
  }
  return [...folders].filter((folder) => !hiddenTrees.includes(folder));
}

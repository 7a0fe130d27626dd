import { homedir } from "node:os";
import { mercuryHome } from "../../config/paths.js";
import { detectSandbox } from "../../sandbox/detect.js";
import { defaultSandboxLimits, type SandboxStatus } from "../../sandbox/types.js";
import { workspaceRefusal } from "../../sandbox/workspace.js";
import { scrubbedEnv } from "../../tools/process-group.js";
import { type ExecResult, execProgram } from "./exec.js";

/** Where Mercury's own git calls are contained: the same sandbox as the agent's commands. */
export interface GitContainment {
  userHome: string;
  mercuryHome: string;
  status?: () => SandboxStatus;
}

export function defaultGitContainment(): GitContainment {
  return { userHome: homedir(), mercuryHome: mercuryHome() };
}

/**
 * Runs git for the change tracker. The repository is the agent's to write (its `.git/config` and
 * `.gitattributes` included), and `git add` runs programs those name (core.fsmonitor, clean filters):
 * so git runs in the OS sandbox with `top` (and the folders git must write) writable, secrets hidden
 * and no secret in its environment. Without a sandbox, or where `top` may not be a workspace (a home
 * folder under git), it runs bare with the fsmonitor hook switched off; a clean filter named by the
 * repository would still run there (see docs/ARCHITECTURE.md).
 */
export async function runContainedGit(
  args: string[],
  options: {
    top: string;
    writable?: string[];
    env?: NodeJS.ProcessEnv;
    timeoutMs?: number;
    containment: GitContainment;
  },
): Promise<ExecResult> {
  const env = { ...scrubbedEnv(), ...options.env };
  const { containment } = options;
  const status = containment.status?.() ?? detectSandbox();
  const refusal = workspaceRefusal(options.top, containment.userHome, containment.mercuryHome);
  const timing = options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {};
  if (status.available && !refusal) {
    // The launch builders load with the first git call (the first change the tracker looks at), not
    // with the agent: a task's first model request does not wait for them.
    const { sandboxProgramLaunch } = await import("../../sandbox/wrap.js");
    const launch = sandboxProgramLaunch(
      ["git", ...args],
      {
        workspace: options.top,
        cwd: options.top,
        userHome: containment.userHome,
        mercuryHome: containment.mercuryHome,
        network: false,
        limits: defaultSandboxLimits,
        extraWritable: options.writable ?? [],
      },
      status,
    );
    return execProgram(launch.file, launch.args, { cwd: options.top, env, ...timing });
  }
  return execProgram("git", ["-c", "core.fsmonitor=false", ...args], { cwd: options.top, env, ...timing });
}

import { homedir } from "node:os";
import { createPermissionContext } from "../permissions/context.js";
import { detectSandboxSoon } from "../sandbox/detect.js";
import type { AuthorizationRequest, AuthorizationResult } from "../tools/types.js";
import type { MercuryApp } from "./container.js";

export interface TaskAuthorizerOptions {
  taskId: string;
  sessionId: string;
  userKey: string;
  signal: AbortSignal;
  cwd: string;
  /** refuse: `mercury run` without --yes; allow-all: `--yes` (this run only); ask: interactive channels. */
  mode: "ask" | "refuse" | "allow-all";
}

/** `--yes` lasts for the run; a day is a bound, not a target (a run that long has other problems). */
const runAllowAllMs = 24 * 60 * 60 * 1000;

/**
 * The permission check for one task, built from config and the task's identity: an explicit
 * context (no global manager), the shared approval broker and the audit log. The context is built,
 * and checked, at task start. The decision engine (shell parser, policy tables: about 40 modules,
 * 280 KB) and the sandbox probe (a trial bwrap child) start on the task's first authorization
 * request, so neither stands in front of the first model request. That request waits for them, and
 * no tool acts before its request is decided. The wait is not a stall: the loop suspends the stall
 * watchdog around every authorization (completion/tool-runner.ts). Loading them earlier, beside the
 * first model step, put their CPU time inside that step's watchdog window, where a loaded machine
 * stretched it past a short hard limit (docs/DECISIONS.md).
 */
export function createTaskAuthorizer(
  app: MercuryApp,
  options: TaskAuthorizerOptions,
): (request: AuthorizationRequest) => Promise<AuthorizationResult> {
  const context = createPermissionContext({
    cwd: options.cwd,
    home: app.env.HOME && app.env.HOME.trim() !== "" ? app.env.HOME : homedir(),
    mercuryHome: app.home,
    writeRoots: [options.cwd, ...app.config.permissions.writeRoots],
    // A skill's own folder is readable without asking (its references and scripts are read on demand).
    readRoots: [...app.config.permissions.readRoots, ...app.skills.readRoots(options.cwd)],
    mode: options.mode === "ask" ? "ask" : "refuse",
    ...(options.mode === "allow-all"
      ? { allowAll: { until: new Date(app.clock.now().getTime() + runAllowAllMs) } }
      : {}),
    sessionId: options.sessionId,
    userKey: options.userKey,
    taskId: options.taskId,
    env: app.env,
  });
  let authorizer: Promise<(request: AuthorizationRequest) => Promise<AuthorizationResult>> | undefined;
  const build = async () => {
    const [{ createAuthorizer }, sandbox] = await Promise.all([
      import("../permissions/authorizer.js"),
      detectSandboxSoon(),
    ]);
    return createAuthorizer({
      context,
      broker: app.approvals,
      audit: app.audit,
      clock: app.clock,
      signal: options.signal,
      // What `--yes` may approve depends on whether an OS sandbox contains it (src/permissions/containment.ts).
      sandbox,
    });
  };
  return async (request) => {
    authorizer ??= build();
    return (await authorizer)(request);
  };
}

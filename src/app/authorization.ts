import { homedir } from "node:os";
import { createAuthorizer } from "../permissions/authorizer.js";
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
 * context (no global manager), the shared approval broker and the audit log. Built at task start, on
 * purpose not on the first request: loading the decision engine and probing the sandbox inside the
 * first tool call made that call slow enough, on a loaded machine, for the stall watchdog to count it
 * as a stall (seen with a 600 ms hard limit in test/e2e/continue-evidence.test.ts). The sandbox probe
 * (a trial bwrap child) starts here too but runs beside the task, not in front of its first model
 * request: the authorizer waits for it on its first question, long after it has finished.
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
  const sandbox = detectSandboxSoon();
  let authorizer: Promise<(request: AuthorizationRequest) => Promise<AuthorizationResult>> | undefined;
  return async (request) => {
    authorizer ??= sandbox.then((status) =>
      createAuthorizer({
        context,
        broker: app.approvals,
        audit: app.audit,
        clock: app.clock,
        signal: options.signal,
        // What `--yes` may approve depends on whether an OS sandbox contains it (src/permissions/containment.ts).
        sandbox: status,
      }),
    );
    return (await authorizer)(request);
  };
}

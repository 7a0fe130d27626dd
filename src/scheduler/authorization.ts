import { realpathSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { isAbsolute, resolve, sep } from "node:path";
import type { TaskIdentity } from "../agent/runtime.js";
import type { MercuryApp } from "../app/container.js";
import { createPermissionContext, deriveChildContext } from "../permissions/context.js";
import type { AnyTool, AuthorizationRequest, AuthorizationResult } from "../tools/types.js";
import type { PermissionProfile } from "./jobs.js";

/** Tools a scheduled run never gets: it cannot create or change jobs. */
export const toolsScheduledRunsLack = new Set(["schedule_task", "cancel_scheduled_task"]);

export function userHomeOf(app: MercuryApp): string {
  return app.env.HOME && app.env.HOME.trim() !== "" ? app.env.HOME : homedir();
}

/**
 * The permission check of a scheduled run: the owner's roots from config in "refuse" mode (nobody
 * is there to answer, so what needs approval is refused and reported), derived so a chat session's
 * allow-all or session grants never apply, then narrowed by the job's profile — never widened.
 */
export function scheduledRunAuthorizer(
  app: MercuryApp,
  job: { workspace: string; owner: string; permissions: PermissionProfile | null },
  identity: TaskIdentity,
): (request: AuthorizationRequest) => Promise<AuthorizationResult> {
  const owner = createPermissionContext({
    cwd: job.workspace,
    home: userHomeOf(app),
    mercuryHome: app.home,
    writeRoots: [job.workspace, ...app.config.permissions.writeRoots],
    readRoots: app.config.permissions.readRoots,
    mode: "refuse",
    sessionId: identity.sessionId,
    userKey: job.owner,
    taskId: identity.taskId,
    env: app.env,
  });
  const context = deriveChildContext(owner, {
    taskId: identity.taskId,
    sessionId: identity.sessionId,
    mode: "refuse",
    ...(job.permissions?.writeRoots ? { writeRoots: job.permissions.writeRoots } : {}),
    ...(job.permissions?.readRoots ? { readRoots: job.permissions.readRoots } : {}),
  });
  // The decision engine loads with the run's first request, not with the scheduler's tools (which
  // every task carries): see app/authorization.ts.
  let authorizer: Promise<(request: AuthorizationRequest) => Promise<AuthorizationResult>> | undefined;
  const build = async () => {
    const { createAuthorizer } = await import("../permissions/authorizer.js");
    return createAuthorizer({
      context,
      broker: app.approvals,
      audit: app.audit,
      clock: app.clock,
      signal: identity.signal,
    });
  };
  return async (request) => {
    authorizer ??= build();
    return (await authorizer)(request);
  };
}

/** The run's tools: never the job tools; only the profile's names when it lists some. */
export function scheduledRunTools(all: readonly AnyTool[], profile: PermissionProfile | null): AnyTool[] {
  const allowed = profile?.tools ? new Set(profile.tools) : null;
  return all.filter((tool) => !toolsScheduledRunsLack.has(tool.name) && (!allowed || allowed.has(tool.name)));
}

/**
 * A job's workspace: an existing directory, absolute, and never the home directory itself, an
 * ancestor of it (e.g. `/`), or MERCURY_HOME — a job that may write anywhere in home is refused.
 */
export function validateWorkspace(path: string, userHome: string, mercuryHome: string): string {
  if (!isAbsolute(path)) throw new Error(`workspace "${path}" must be an absolute path`);
  let real: string;
  try {
    real = realpathSync.native(resolve(path));
  } catch {
    throw new Error(`workspace "${path}" does not exist; create the folder first`);
  }
  if (!statSync(real).isDirectory()) throw new Error(`workspace "${path}" is not a folder`);
  const realHome = safeReal(userHome);
  const realMercury = safeReal(mercuryHome);
  const within = (child: string, parent: string) =>
    child === parent || child.startsWith(parent.endsWith(sep) ? parent : parent + sep);
  if (within(realHome, real)) {
    throw new Error(
      `workspace "${path}" is your home directory or contains it; give a project folder inside it instead (a scheduled job writes where it runs)`,
    );
  }
  if (real === realMercury)
    throw new Error(`workspace "${path}" is Mercury's own folder; use a project folder`);
  return real;
}

function safeReal(path: string): string {
  try {
    return realpathSync.native(path);
  } catch {
    return resolve(path);
  }
}

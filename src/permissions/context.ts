import { realpathSync } from "node:fs";
import { isAbsolute, join, resolve, sep } from "node:path";
import type { Stmt } from "./shell-ast.js";

/**
 * Everything the engine needs to judge a request, carried explicitly per task. There is no global
 * permission manager: a sub-agent or scheduled task gets a value derived with `deriveChildContext`,
 * which can only narrow.
 */
export interface PermissionContext {
  /** Working directory of the task (absolute). */
  cwd: string;
  /** The user's home directory, for `~`, `$HOME` and the sensitive-path list. */
  home: string;
  /** MERCURY_HOME: its .env and database are off-limits to tools. */
  mercuryHome: string;
  /** Where writes may happen without asking (absolute, real paths). */
  writeRoots: readonly string[];
  /** Where reads may happen without asking, in addition to the write roots. */
  readRoots: readonly string[];
  /** "refuse": a non-interactive run without --yes; anything that needs approval is refused and reported. */
  mode: "ask" | "refuse";
  /** An allow-all window carried by this context (e.g. `mercury run --yes`). Never inherited. */
  allowAll?: { until: Date };
  sessionId: string;
  /** Whose task this is: approvals go to this person. */
  userKey: string;
  taskId: string;
  /** True for sub-agents and scheduled tasks: session-wide allow-all and session grants do not apply. */
  derived: boolean;
  /** Environment used to expand `$VAR` in commands (defaults to process.env). */
  env: Readonly<Record<string, string | undefined>>;
  /** Per-task network state for the exfiltration check; absent, the check is off (policy check CLI). */
  network?: TaskNetworkState;
  /**
   * Set only for the engine's second look at a command whose words depend on variables or
   * substitutions: the values they may take, so a hardline hidden behind `H=~; rm -rf $H` is seen.
   */
  speculation?: Speculation;
}

/** What `$X`, `${X:-word}`, `$(echo …)` and `~user` may stand for in a speculative pass (speculation.ts). */
export interface Speculation {
  /** Values each shell variable may take in this command (assignments, loop words, read, set --). */
  variables: ReadonlyMap<string, readonly string[]>;
  /** Which candidate to use when a variable may take several values: pass k takes the k-th. */
  pass: number;
  /** The text a command substitution prints, when the engine can tell (echo, printf, pwd). */
  substitute(stmts: readonly Stmt[], context: PermissionContext): string | null;
  /** `~name`: that user's home directory, or null. */
  userHome(name: string): string | null;
}

/** What entered the task from outside, and which hosts it has contacted (mutated as the task runs). */
export interface TaskNetworkState {
  /** Why the task's input is untrusted (web content, a file from outside the workspace), or null. */
  untrusted: string | null;
  /** Web content fetched by the current fetch: untrusted from the task's next request on (redirect hops excluded). */
  pendingUntrusted: string | null;
  contactedHosts: Set<string>;
}

export function newTaskNetworkState(): TaskNetworkState {
  return { untrusted: null, pendingUntrusted: null, contactedHosts: new Set() };
}

export interface PermissionContextInput {
  cwd: string;
  home: string;
  mercuryHome: string;
  writeRoots?: readonly string[];
  readRoots?: readonly string[];
  mode?: "ask" | "refuse";
  allowAll?: { until: Date };
  sessionId: string;
  userKey: string;
  taskId: string;
  env?: Readonly<Record<string, string | undefined>>;
}

export class PermissionContextError extends Error {
  override name = "PermissionContextError";
}

/** Builds a top-level context; roots default to the working directory (write and read). */
export function createPermissionContext(input: PermissionContextInput): PermissionContext {
  for (const [name, value] of [
    ["cwd", input.cwd],
    ["home", input.home],
    ["mercuryHome", input.mercuryHome],
  ] as const) {
    if (!isAbsolute(value)) {
      throw new PermissionContextError(
        `permission context: ${name} must be an absolute path, got "${value}"`,
      );
    }
  }
  const cwd = realOrResolved(input.cwd);
  const context: PermissionContext = {
    cwd,
    home: realOrResolved(input.home),
    mercuryHome: realOrResolved(input.mercuryHome),
    writeRoots: dedupe((input.writeRoots ?? [cwd]).map((root) => realOrResolved(resolve(cwd, root)))),
    readRoots: dedupe((input.readRoots ?? []).map((root) => realOrResolved(resolve(cwd, root)))),
    mode: input.mode ?? "ask",
    sessionId: input.sessionId,
    userKey: input.userKey,
    taskId: input.taskId,
    derived: false,
    env: input.env ?? process.env,
    network: newTaskNetworkState(),
  };
  if (input.allowAll) context.allowAll = { until: input.allowAll.until };
  return context;
}

export interface ChildContextRequest {
  taskId: string;
  sessionId?: string;
  cwd?: string;
  writeRoots?: readonly string[];
  readRoots?: readonly string[];
  /** A child may become stricter ("refuse") but never more lenient than its parent. */
  mode?: "ask" | "refuse";
}

/**
 * The context for a sub-agent, skill or scheduled task: roots are intersected with the parent's,
 * allow-all is dropped, the user stays the parent's user, and a "refuse" parent stays "refuse".
 */
export function deriveChildContext(
  parent: PermissionContext,
  request: ChildContextRequest,
): PermissionContext {
  const parentReadable = [...parent.writeRoots, ...parent.readRoots];
  const cwd = request.cwd ? realOrResolved(resolve(parent.cwd, request.cwd)) : parent.cwd;
  const writeRoots = intersectRoots(
    (request.writeRoots ?? parent.writeRoots).map((root) => realOrResolved(resolve(parent.cwd, root))),
    parent.writeRoots,
  );
  const readRoots = intersectRoots(
    (request.readRoots ?? parent.readRoots).map((root) => realOrResolved(resolve(parent.cwd, root))),
    parentReadable,
  );
  return {
    cwd,
    home: parent.home,
    mercuryHome: parent.mercuryHome,
    writeRoots,
    readRoots,
    mode: parent.mode === "refuse" ? "refuse" : (request.mode ?? parent.mode),
    sessionId: request.sessionId ?? parent.sessionId,
    userKey: parent.userKey,
    taskId: request.taskId,
    derived: true,
    env: parent.env,
    ...(parent.network ? { network: parent.network } : {}),
  };
}

/** Same as deriveChildContext with the parent's own roots: the narrowest common form. */
export function narrow(parent: PermissionContext, child: ChildContextRequest): PermissionContext {
  return deriveChildContext(parent, child);
}

/** Keeps each requested root only where it lies inside an allowed one (the deeper of the two wins). */
export function intersectRoots(requested: readonly string[], allowed: readonly string[]): string[] {
  const result: string[] = [];
  for (const root of requested) {
    for (const limit of allowed) {
      if (isWithin(root, limit)) result.push(root);
      else if (isWithin(limit, root)) result.push(limit);
    }
  }
  return dedupe(result);
}

/**
 * Mercury's own state: everything under MERCURY_HOME except the inside of its `workspace` folder,
 * the working folder the daemon gives Telegram and dashboard tasks (daemon/run.ts). Without the
 * exception every file a Telegram task writes was refused as Mercury's configuration. The folder
 * itself stays state (deleting or replacing it is not a task's work); symlinks out of it are judged
 * by their real path, which is outside it.
 */
export function isMercuryState(path: string, mercuryHome: string): boolean {
  if (!isWithin(path, mercuryHome)) return false;
  const workspace = join(mercuryHome, "workspace");
  return path === workspace || !isWithin(path, workspace);
}

export function isWithin(path: string, root: string): boolean {
  if (path === root) return true;
  const prefix = root.endsWith(sep) ? root : root + sep;
  return path.startsWith(prefix);
}

function realOrResolved(path: string): string {
  try {
    return realpathSync.native(path);
  } catch (error) {
    if (isMissing(error)) return resolve(path);
    throw error;
  }
}

export function isMissing(error: unknown): boolean {
  return (
    typeof error === "object" &&
    error !== null &&
    "code" in error &&
    (error.code === "ENOENT" || error.code === "ENOTDIR")
  );
}

function dedupe(values: readonly string[]): string[] {
  return [...new Set(values)];
}

import { mkdir, mkdtemp, realpath, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, dirname, join } from "node:path";
import type {
  AuthorizationRequest,
  AuthorizationResult,
  ToolContext,
  ToolResult,
} from "../../src/tools/types.js";

export type FakeAuthorizer =
  | "allow"
  | "deny"
  | ((request: AuthorizationRequest) => AuthorizationResult | Promise<AuthorizationResult>);

export interface FakeContext extends ToolContext {
  requests: AuthorizationRequest[];
  activity: string[];
  controller: AbortController;
}

/** A tool context with a fake permission engine that records every request it is asked. */
export function fakeContext(
  dirs: { cwd: string; home: string },
  authorizer: FakeAuthorizer = "allow",
  extra: Partial<ToolContext> = {},
): FakeContext {
  const requests: AuthorizationRequest[] = [];
  const activity: string[] = [];
  const controller = new AbortController();
  return {
    signal: controller.signal,
    cwd: dirs.cwd,
    home: dirs.home,
    sessionId: "session-test",
    taskId: "task-test",
    userKey: "owner",
    requests,
    activity,
    controller,
    async authorize(request) {
      requests.push(request);
      if (authorizer === "allow") return { allowed: true, rule: "test-allow" };
      if (authorizer === "deny") return { allowed: false, rule: "test-deny", reason: "denied by the test" };
      return authorizer(request);
    },
    reportActivity(detail) {
      if (detail !== undefined) activity.push(detail);
    },
    ...extra,
  };
}

export interface TempDirs {
  cwd: string;
  home: string;
  root: string;
  cleanup(): Promise<void>;
}

/** A fresh temp tree (realpath'd, since macOS /tmp is a symlink) with a working dir and a MERCURY_HOME. */
export async function tempDirs(): Promise<TempDirs> {
  const root = await realpath(await mkdtemp(join(tmpdir(), "mercury-tools-")));
  const cwd = join(root, "work");
  const home = join(root, "home");
  await mkdir(cwd);
  await mkdir(home);
  return { cwd, home, root, cleanup: () => rm(root, { recursive: true, force: true }) };
}

export function expectOk(result: ToolResult): string {
  if (!result.ok) throw new Error(`expected ok, got error: ${result.error}`);
  return result.output;
}

export function expectError(result: ToolResult): string {
  if (result.ok) throw new Error(`expected an error, got output: ${result.output}`);
  return result.error;
}

/**
 * Allows everything but resolves paths like the real engine: realpath of the path, or of its deepest
 * existing parent plus the rest for a new file. Tools must act on the result.
 */
export function resolvingAuthorizer(
  request: AuthorizationRequest,
): Promise<AuthorizationResult> | AuthorizationResult {
  if (request.kind !== "path") return { allowed: true, rule: "test-allow" };
  return resolveDeepest(request.path).then((resolvedPath) => ({
    allowed: true,
    rule: "test-resolve",
    resolvedPath,
  }));
}

async function resolveDeepest(path: string): Promise<string> {
  const rest: string[] = [];
  let current = path;
  for (;;) {
    try {
      return join(await realpath(current), ...rest.reverse());
    } catch (error) {
      const parent = dirname(current);
      if (parent === current) throw error;
      rest.push(basename(current));
      current = parent;
    }
  }
}

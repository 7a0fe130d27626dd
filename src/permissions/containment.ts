import type { SandboxStatus } from "../sandbox/detect.js";
import type { AuthorizationRequest } from "../tools/types.js";
import { isWithin, type PermissionContext } from "./context.js";
import { secretInTree } from "./tree-secrets.js";
import type { Decision } from "./types.js";

/**
 * What allow-all (`mercury run --yes`, a chat's allow-all window) may approve on its own: only what
 * the OS sandbox contains. Never a deny (decided before), never an opaque command, never something
 * outside the workspace (a file tool writes from inside Mercury, where no sandbox holds it; a command
 * reading outside the workspace is the user's call), never the exfiltration check, and nothing at
 * all when no sandbox is available — then only provably read-only commands (policy `allow`) run.
 * Network is not part of it: a command approved by allow-all runs without network.
 */
export type Coverage = { covered: true } | { covered: false; why: string };

/** Ask rules a person must settle: they concern what lies outside the sandbox's walls. */
const personOnlyRules = new Set([
  "path.outside-roots",
  "path.env-file",
  "path.git-internals",
  "path.autorun",
  "command.persistence",
  "command.discards-work",
  "command.recursive-sensitive",
  "path.unicode",
  "command.privilege",
  "command.registry-code",
  "network.exfiltration",
]);

export function allowAllCoverage(
  request: AuthorizationRequest,
  decision: Decision,
  context: PermissionContext,
  sandbox: SandboxStatus,
): Coverage {
  if (decision.opaque) {
    return {
      covered: false,
      why: "allow-all does not cover commands whose effect cannot be checked before they run (substitutions, unknown variables, expansions, eval). Rewrite it with plain arguments or approve it in chat",
    };
  }
  if (decision.changesChecks || decision.rule === "command.check-change") {
    return {
      covered: false,
      why: "allow-all never approves a change to the checks (an existing test, a test runner, lint or CI definition, package.json scripts): the sandbox cannot tell a fixed test from a weakened one, so a person approves it",
    };
  }
  if (personOnlyRules.has(decision.rule) || decision.outside) {
    return {
      covered: false,
      why: `allow-all covers only what stays inside the workspace and the OS sandbox; this reaches outside the workspace (or needs privileges, or is the exfiltration check), so it needs a person's approval`,
    };
  }
  if (request.kind === "network") {
    return { covered: false, why: "allow-all never grants network access on its own; approve it in chat" };
  }
  if (request.kind === "path") {
    const where = decision.resolvedPath ?? request.path;
    if (!context.writeRoots.some((root) => isWithin(where, root))) {
      return {
        covered: false,
        why: `allow-all covers only paths inside the workspace (${context.writeRoots.join(", ")})`,
      };
    }
    return { covered: true };
  }
  if (!sandbox.available) {
    return {
      covered: false,
      why: `no OS sandbox is available (${sandbox.reason}), so allow-all approves only read-only commands; fix: ${sandbox.fix}`,
    };
  }
  const cwd = request.kind === "command" && request.cwd ? request.cwd : context.cwd;
  if (!context.writeRoots.some((root) => isWithin(cwd, root))) {
    return { covered: false, why: `allow-all covers only commands run inside the workspace, not in ${cwd}` };
  }
  // The sandbox masks secrets by name; a hard link to one inside the workspace is another name it
  // cannot hide, so no command there is contained (`cp -r . b && cat b/link` would read the key).
  for (const root of context.writeRoots) {
    const secret = secretInTree(root, context, { hidden: true });
    if (secret?.hardLink) {
      return {
        covered: false,
        why: `the workspace holds ${secret.path}, a hard link to a secret file, which the OS sandbox cannot hide; allow-all covers no command here until it is removed`,
      };
    }
  }
  return { covered: true };
}

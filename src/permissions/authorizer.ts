import { type Clock, systemClock } from "../agent/clock.js";
import { networkApprovalNote } from "../sandbox/describe.js";
import type { SandboxStatus } from "../sandbox/detect.js";
import type { AuthorizationRequest, AuthorizationResult } from "../tools/types.js";
import type { ApprovalBroker } from "./approvals.js";
import type { AuditLog } from "./audit.js";
import { allowAllCoverage } from "./containment.js";
import { isWithin, type PermissionContext } from "./context.js";
import { type DecideOptions, decide, mcpSubject } from "./decide.js";
import type { Decision } from "./types.js";

export interface AuthorizerDeps {
  context: PermissionContext;
  broker: ApprovalBroker;
  audit: AuditLog;
  clock?: Clock;
  /** Cancels a wait for approval when the task is stopped. */
  signal?: AbortSignal;
  /** How long the person has to answer; the broker's default otherwise. */
  approvalTimeoutMs?: number;
  decideOptions?: DecideOptions;
  /**
   * Whether an OS sandbox contains the commands this task runs (injected so tests choose). Without
   * it, allow-all approves nothing that is not provably read-only.
   */
  sandbox?: SandboxStatus;
}

const noSandboxGiven: SandboxStatus = {
  available: false,
  reason: "the authorizer was not told of an OS sandbox",
  fix: "run `mercury doctor` to see how to install one",
};

/**
 * The function that goes into ToolContext.authorize. Order: the policy decides; deny is final;
 * allow passes; ask is settled by a standing grant, then an active allow-all (never for hardline
 * or sensitive paths, which are deny anyway), then — in "refuse" mode — a reported refusal, else
 * the person whose task it is is asked through the broker. The model has no way to answer.
 */
export function createAuthorizer(
  deps: AuthorizerDeps,
): (request: AuthorizationRequest) => Promise<AuthorizationResult> {
  const clock = deps.clock ?? systemClock;
  const { context, broker, audit } = deps;

  return async (request) => {
    const state = context.network;
    if (state?.pendingUntrusted && !(request.kind === "network" && request.redirectFrom)) {
      state.untrusted ??= state.pendingUntrusted;
      state.pendingUntrusted = null;
    }
    const decision = await decide(request, context, deps.decideOptions);
    const summary = summarize(request);
    const base = {
      taskId: context.taskId,
      sessionId: context.sessionId,
      userKey: context.userKey,
      tool: toolOf(request),
      summary,
      decision: decision.decision,
      rule: decision.rule,
      reason: decision.reason,
    };
    const allow = (approvedBy: string, approvalId?: string): AuthorizationResult => {
      audit.record({ ...base, outcome: "allowed", approvedBy, ...(approvalId ? { approvalId } : {}) });
      const result: AuthorizationResult = { allowed: true, rule: decision.rule };
      if (decision.resolvedPath) result.resolvedPath = decision.resolvedPath;
      if (approvedBy !== "policy" && approvedBy !== "allow-all") result.byPerson = true;
      // Network inside the sandbox: only when a person (or their standing grant) approved this command.
      if (
        request.kind === "command" &&
        decision.needsNetwork === true &&
        approvedBy !== "policy" &&
        approvedBy !== "allow-all"
      ) {
        result.network = true;
      }
      recordTaint(context, request, decision);
      return result;
    };
    const refuse = (reason: string, approvalId?: string, answeredBy?: string): AuthorizationResult => {
      audit.record({
        ...base,
        outcome: "refused",
        reason,
        ...(answeredBy ? { approvedBy: answeredBy } : {}),
        ...(approvalId ? { approvalId } : {}),
      });
      return { allowed: false, rule: decision.rule, reason };
    };

    if (decision.decision === "deny") return refuse(`refused (${decision.rule}): ${decision.reason}`);
    if (decision.decision === "allow") return allow("policy");

    const grant = broker.grants.find({
      userKey: context.userKey,
      sessionId: context.derived ? null : context.sessionId,
      kind: request.kind,
      subject: decision.subject,
      singleCommand: decision.singleCommand === true,
    });
    if (grant) return allow(`grant:${grant.id}`);
    // An MCP server may be approved as a whole ("always" for every tool of that server).
    const serverGrant =
      request.kind === "mcp"
        ? broker.grants.find({
            userKey: context.userKey,
            sessionId: context.derived ? null : context.sessionId,
            kind: "mcp",
            subject: mcpSubject(request.server, "*"),
            singleCommand: false,
          })
        : null;
    if (serverGrant) return allow(`grant:${serverGrant.id}`);

    const allowAll = allowAllActive(context, broker, clock);
    const coverage = allowAll
      ? allowAllCoverage(request, decision, context, deps.sandbox ?? noSandboxGiven)
      : null;
    if (coverage?.covered) return allow("allow-all");

    if (context.mode === "refuse") {
      if (coverage && !coverage.covered) {
        return refuse(`needs a person's approval (${decision.rule}: ${decision.reason}); ${coverage.why}`);
      }
      return refuse(
        `needs approval (${decision.rule}: ${decision.reason}); this run is non-interactive: rerun with --yes or approve in chat`,
      );
    }
    const outcome = await broker.request({
      taskId: context.taskId,
      sessionId: context.sessionId,
      userKey: context.userKey,
      kind: request.kind,
      // The prompt shows the summary: a networked command's says what approving gives it.
      summary:
        request.kind === "command" && decision.needsNetwork === true
          ? `${summary} (${networkApprovalNote(deps.sandbox)})`
          : summary,
      subject: decision.subject,
      rule: decision.rule,
      reason: decision.reason,
      ...(deps.approvalTimeoutMs !== undefined ? { timeoutMs: deps.approvalTimeoutMs } : {}),
      ...(deps.signal ? { signal: deps.signal } : {}),
    });
    if (outcome.status === "approved") return allow(outcome.answeredBy, outcome.approvalId);
    if (outcome.status === "denied") {
      return refuse(
        `${outcome.answeredBy} denied this (${decision.rule}: ${decision.reason})`,
        outcome.approvalId,
        outcome.answeredBy,
      );
    }
    return refuse(outcome.message, outcome.approvalId);
  };
}

/** Allow-all from the context itself (`--yes`), or the session's window; never for derived contexts' sessions. */
export function allowAllActive(context: PermissionContext, broker: ApprovalBroker, clock: Clock): boolean {
  const now = clock.now().getTime();
  if (context.allowAll && context.allowAll.until.getTime() > now) return true;
  if (context.derived) return false;
  return broker.allowAllStatus(context.sessionId).active;
}

export function summarize(request: AuthorizationRequest): string {
  switch (request.kind) {
    case "command":
      return `run: ${request.command}${request.cwd ? ` (in ${request.cwd})` : ""}`;
    case "path":
      return `${request.access}: ${request.path}`;
    case "network":
      return `fetch: ${request.url}`;
    case "mcp":
      return `mcp: ${request.server} ${request.tool}${request.readOnly ? " (read-only)" : ""}`;
  }
}

function toolOf(request: AuthorizationRequest): string {
  if (request.kind === "command") return "run_command";
  if (request.kind === "network") return "web_fetch";
  if (request.kind === "mcp") return `mcp__${request.server}__${request.tool}`;
  return request.access === "write" ? "file-write" : "file-read";
}

/**
 * Per-task exfiltration state: once web content or a file from outside the workspace has entered the
 * task, the engine asks before contacting a host the task has not contacted yet.
 */
function recordTaint(context: PermissionContext, request: AuthorizationRequest, decision: Decision): void {
  const state = context.network;
  if (!state) return;
  if (request.kind === "network") {
    const host = hostOf(request.url);
    if (host) state.contactedHosts.add(host);
    state.pendingUntrusted ??= `content fetched from ${request.url}`;
    return;
  }
  if (request.kind === "path" && request.access === "read") {
    const where = decision.resolvedPath ?? request.path;
    if (!context.writeRoots.some((root) => isWithin(where, root))) state.untrusted ??= `the file ${where}`;
    return;
  }
  if (request.kind === "command") {
    for (const host of decision.hosts ?? []) state.contactedHosts.add(host);
    if (decision.readsOutside)
      state.untrusted ??= `a command reading outside the workspace (${decision.subject})`;
    if (decision.needsNetwork) state.untrusted ??= `the output of a networked command (${decision.subject})`;
  }
}

function hostOf(url: string): string | null {
  try {
    return new URL(url).hostname.toLowerCase();
  } catch {
    return null;
  }
}

export type { Decision };

import { z } from "zod";

/** Starts the error of a delegate_task whose child's check failed or never ran (read by the tool runner). */
export const uncheckedPrefix = "[unverified] ";

/** Starts the error of a delegate_task whose child failed, paused or was cancelled. */
export const unfinishedPrefix = "[unfinished] ";

/** Shown beside a parent's answer; a provider's long message is cut, the whole is in toolErrors. */
const maxReasonLength = 300;

/** How every delegation claim starts (see the gate: a parent is not completed over an unfinished child). */
export const delegationClaimStart = "a sub-agent";

export interface DelegationClaim {
  why: string;
  /**
   * The child did not do its work: it failed, paused or was stopped, or its own last check failed.
   * No check of the parent's bears that work out (it runs the parent's project, not what the child
   * was asked). False for a child whose check never ran: the parent's own check may stand for it.
   */
  unfinished: boolean;
}

/**
 * For the parent's evidence: why a failed delegate_task leaves the work it asked for unproven; null
 * for a delegation that never started a child (a limit, a bad folder). Without it, a parent whose
 * child's provider failed could answer "the helper did it" with no note (session 9).
 */
export function uncheckedDelegation(error: string): DelegationClaim | null {
  if (error.startsWith(uncheckedPrefix)) {
    const rest = error.slice(uncheckedPrefix.length);
    const end = rest.indexOf(": {");
    const summary = end > 0 ? rest.slice(0, end) : rest;
    return {
      why: `${delegationClaimStart}'s check did not pass or never ran (${summary})`,
      unfinished: /^sub-agent \w+, but its last verification /.test(summary),
    };
  }
  if (!error.startsWith(unfinishedPrefix)) return null;
  const outcome = /^sub-agent (\w+)/.exec(error.slice(unfinishedPrefix.length))?.[1] ?? "did not finish";
  const reason = reasonOf(error.slice(error.indexOf(": {") + 2));
  return {
    why: `${delegationClaimStart} did not finish its work (${outcome}${reason ? `: ${reason}` : ""})`,
    unfinished: true,
  };
}

const childReport = z.object({ reason: z.string() }).loose();

function reasonOf(json: string): string | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    // Not the report delegate.ts writes: the outcome alone is said.
    return null;
  }
  const reason = childReport.safeParse(parsed).data?.reason;
  if (reason === undefined) return null;
  return reason.length > maxReasonLength ? `${reason.slice(0, maxReasonLength)}…` : reason;
}

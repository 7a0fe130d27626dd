import type { TaskState } from "../state.js";

export const maxGuardRounds = 10;

export type GuardLevel = "grounding" | "forced" | "rotate" | "wake-up";
const ladder: GuardLevel[] = ["grounding", "forced", "rotate", "wake-up"];

/** The rung for the n-th guarded round since the last progress (1-based); the ladder repeats. */
export function guardLevel(roundSinceProgress: number): GuardLevel {
  return ladder[(roundSinceProgress - 1) % ladder.length] as GuardLevel;
}

export interface UnfinishedWork {
  openItems: string[];
  /** Why the guard fired, for the note and the pause reason. */
  why: string;
}

// The model's own words, not the user's: "I'll now…", "Let me…" right after a failed tool call.
const announcement = /\b(i['’]ll|i will|let me (?!know)|i['’]m going to|i am going to|next,? i|now i)\b/i;

/**
 * Whether the task's own state shows work left when the model stopped without a tool call:
 * open items on its plan, or — with no plan — a tool call that failed and was never followed by a
 * successful change while the model's last reply announces a next action. A conversation that
 * used no tools can never qualify, whatever the user asked.
 */
export function unfinishedWork(state: TaskState, finalStepText: string): UnfinishedWork | null {
  const open = state.plan.filter((item) => !item.done).map((item) => item.text);
  if (open.length > 0) return { openItems: open, why: `the plan still has ${open.length} open item(s)` };
  if (state.plan.length > 0) return null;
  const failure = state.lastToolFailure;
  if (failure && failure.step >= state.lastMutationStep && failure.step > state.lastGuardProgressStep) {
    if (announcement.test(finalStepText))
      return { openItems: [], why: `the reply announces a next action after ${failure.toolName} failed` };
  }
  return null;
}

export function guardNote(level: GuardLevel, work: UnfinishedWork, listing: string | null): string {
  const items =
    work.openItems.length > 0 ? `\nOpen plan items:\n${work.openItems.map((t) => `- ${t}`).join("\n")}` : "";
  if (level === "grounding") {
    return (
      `[Mercury] You ended your turn without calling a tool, but ${work.why}.${items}\n` +
      `Here is the current workspace, listed by Mercury:\n${listing ?? "(could not list the workspace)"}\n` +
      "Do the next step now with a tool call. If an item is already done, mark it done with update_plan. " +
      "If something blocks you, say exactly what."
    );
  }
  if (level === "forced") {
    return `[Mercury] ${work.why}.${items}\nThis step must be a tool call that does the next step.`;
  }
  return (
    `[Mercury] Wake up: you have stopped several times without acting, and ${work.why}.${items}\n` +
    "Act now with a tool call, or reply with the precise blocker (the error you hit) so the user can help."
  );
}

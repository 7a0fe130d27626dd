import type { TaskState } from "./state.js";

/**
 * What is known about the task's files when the model cannot go on: a provider that fails on the
 * last, summarizing step leaves verified work behind, and one that fails mid-task leaves changes no
 * check has seen. The reason says which, so "failed" is not read as "nothing was done" nor as "done".
 * From the records only (the gate's file picture is not loaded for this).
 */
export function workSoFar(state: TaskState): string {
  if (state.lastChangeSequence < 0) return "";
  const latest = state.verifications.filter((run) => run.sequence > state.lastChangeSequence).at(-1);
  if (latest && latest.exitCode === 0 && latest.outputSays === undefined)
    return `. Before it, the task's changes were checked: \`${latest.command}\` exited 0 after the last change; only the model's final answer is missing (say "continue" to finish).`;
  const how = latest
    ? `the last check after them, \`${latest.command}\`, ${latest.exitCode === null ? "did not finish" : latest.exitCode === 0 ? "exited 0 but its output did not show a pass" : `exited ${latest.exitCode}`}`
    : "no check ran after the last change";
  return `. The task had changed files and ${how}, so they are unverified (say "continue" to resume).`;
}

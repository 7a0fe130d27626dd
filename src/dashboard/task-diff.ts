import { type GitContainment, runContainedGit } from "../agent/completion/contained-git.js";
import type { TaskEvidence } from "../agent/evidence.js";

/** A page shows at most this much of a diff; the rest is named, not dropped silently. */
const maxDiffBytes = 200_000;

export type TaskDiff = { ok: true; text: string; cut: boolean } | { ok: false; reason: string };

/**
 * The task's changes as a unified diff: between the git tree recorded at its first change and the
 * tree at its last report, through the same contained git the change tracker uses (the repository
 * is the agent's, its config may name programs). Snapshot baselines keep copies, not trees: their
 * files are listed, not diffed.
 */
export async function taskDiff(evidence: TaskEvidence, containment: GitContainment): Promise<TaskDiff> {
  const baseline = evidence.baseline;
  if (!baseline) return { ok: false, reason: "no baseline was recorded (the task changed nothing)" };
  if (baseline.kind !== "git")
    return {
      ok: false,
      reason:
        baseline.kind === "failed"
          ? `the baseline failed: ${baseline.note}`
          : "outside git the baseline is a snapshot; the files changed are listed above",
    };
  const after = evidence.after?.tree;
  if (!after) return { ok: false, reason: "the task has not reported its changes yet" };
  const result = await runContainedGit(
    ["diff", "--no-color", "--no-ext-diff", "--no-renames", baseline.tree, after],
    { top: baseline.top, containment, timeoutMs: 20_000 },
  );
  if (result.code !== 0)
    return { ok: false, reason: `git diff failed: ${result.stderr.trim() || `exit ${result.code}`}` };
  const cut = result.stdout.length > maxDiffBytes;
  return { ok: true, text: cut ? result.stdout.slice(0, maxDiffBytes) : result.stdout, cut };
}

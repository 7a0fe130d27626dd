import { randomBytes } from "node:crypto";
import { type ContainedGitOptions, runContainedProgram } from "./contained-git.js";

/**
 * The git commands of one baseline or one change report, run in ONE contained launch. Each launch
 * (bwrap, the seccomp entry, the cgroups, the disk watch) costs far more than git itself on a small
 * repository, and a report used to make five of them.
 *
 * The script is fixed text; the index, the trees and the frame mark are its arguments (never part
 * of the script). Each command's stdout and stderr are followed by a frame line on both streams:
 * NUL, the mark, the step's name and exit code, NUL. The mark is 32 random bytes made for this
 * launch, after every file name in the repository already existed, so no name git prints can carry
 * it. The programs the repository names (clean filters, hooks, fsmonitor) hold git's stderr, never
 * the script's stdout (a socket, which /proc/<pid>/fd cannot reopen), so a frame they forge appears
 * on one stream only: Node accepts only the same frames on both streams, in exactly the sequence
 * the exit codes and trees imply, and anything else (a duplicate, a frame out of order, one for a
 * step that never ran) fails the report rather than changing it.
 *
 * Programs the repository names (clean filters, hooks, fsmonitor) run contained during a step, as
 * they did before; each step's leftovers are killed when it ends (`kill -s KILL -- -1` in the sandbox's
 * own pid namespace, where the script is pid 2), so a daemon a filter starts in `git add` does not
 * live into the later steps, as it did not outlive its own launch before. Outside a pid namespace
 * the script's pid is never 3 or below, and the kill is skipped (no sandbox: the drivers are off).
 */
const batchScript = `mark=$1 index=$2 before=$3
frame() {
  if [ "$$" -le 3 ]; then kill -s KILL -- -1 2>/dev/null; fi
  printf '\\0%s %s %s\\0' "$mark" "$1" "$2"
  printf '\\0%s %s %s\\0' "$mark" "$1" "$2" >&2
  return "$2"
}
step() {
  name=$1; shift
  git --no-pager "$@"
  frame "$name" $?
}
GIT_INDEX_FILE=$index; export GIT_INDEX_FILE
step add add -A -- . || exit 0
tree=$(git --no-pager write-tree); code=$?
printf '%s\\n' "$tree"
frame tree "$code" || exit 0
unset GIT_INDEX_FILE
[ -n "$before" ] || exit 0
if [ "$tree" != "$before" ]; then
  step status diff --name-status --no-renames --no-ext-diff --no-textconv -z "$before" "$tree" || exit 0
  step numstat diff --numstat --no-renames --no-ext-diff --no-textconv -z "$before" "$tree" || exit 0
fi
step ignored ls-files -z --others --ignored --exclude-standard
exit 0`;

export interface StepResult {
  code: number;
  stdout: string;
  stderr: string;
}

export interface TreeBatch {
  tree: string;
  /** Only in a report (a `before` tree given): absent when the tree did not change. */
  nameStatus?: string;
  numstat?: string;
  /** Only in a report: `git ls-files -z --others --ignored --exclude-standard`, the real index. */
  ignored?: string;
}

/** git's command line per step, for error messages. */
const stepCommands: Record<string, string> = {
  add: "git add",
  tree: "git write-tree",
  status: "git diff --name-status",
  numstat: "git diff --numstat",
  ignored: "git ls-files",
};

/**
 * `git add -A` into `index` (GIT_INDEX_FILE) and `git write-tree`; with `before`, also the diffs from
 * `before` to the new tree and the ignored files. Throws naming the git command that failed and its
 * stderr. `options.env` must not set GIT_INDEX_FILE (the script sets it for add and write-tree only).
 */
export async function runTreeBatch(
  index: string,
  before: string | null,
  options: ContainedGitOptions,
): Promise<TreeBatch> {
  const mark = randomBytes(32).toString("hex");
  const result = await runContainedProgram(["/bin/sh", "-c", batchScript, "sh", mark, index, before ?? ""], {
    ...options,
    timeoutMs: options.timeoutMs ?? 330_000,
  });
  const stdout = framed(result.stdout, mark);
  const stderr = framed(result.stderr, mark);
  const names = stdout.frames.map((frame) => frame.name);
  const steps = new Map<string, StepResult>();
  for (const [position, frame] of stdout.frames.entries()) {
    const errorFrame = stderr.frames[position];
    if (
      !errorFrame ||
      errorFrame.name !== frame.name ||
      errorFrame.code !== frame.code ||
      steps.has(frame.name)
    )
      throw new Error(`the batched git run's frames do not match (steps: ${names.join(", ")})`);
    steps.set(frame.name, { code: frame.code, stdout: frame.text, stderr: errorFrame.text });
  }
  const expected = expectedSteps(steps, before);
  const complete = names.join(" ") === expected.join(" ") && stderr.frames.length === names.length;
  if (!complete) {
    const prefix = expected.slice(0, names.length).join(" ") === names.join(" ");
    const running = prefix ? expected[names.length] : undefined;
    // A step that did not finish: stopped (a timeout, the disk floor) or the script could not start.
    if (running && stderr.frames.length === names.length)
      throw new Error(
        `${stepCommands[running]} did not finish (exit ${result.code}): ${stderr.rest.trim() || "no message"}`,
      );
    throw new Error(`the batched git run's frames do not match (steps: ${names.join(", ") || "none"})`);
  }
  // Only something other than the script writes past its last frame on stdout.
  if (stdout.rest !== "") throw new Error("the batched git run printed past its last step");
  for (const name of names) {
    const step = steps.get(name) as StepResult;
    if (step.code !== 0) throw new Error(`${stepCommands[name]} failed: ${step.stderr.trim()}`);
  }
  const tree = (steps.get("tree") as StepResult).stdout.trim();
  if (!/^[0-9a-f]{40}([0-9a-f]{24})?$/.test(tree))
    throw new Error(`git write-tree printed ${JSON.stringify(tree)}`);
  const batch: TreeBatch = { tree };
  const nameStatus = steps.get("status");
  const numstat = steps.get("numstat");
  const ignored = steps.get("ignored");
  if (nameStatus) batch.nameStatus = nameStatus.stdout;
  if (numstat) batch.numstat = numstat.stdout;
  if (ignored) batch.ignored = ignored.stdout;
  return batch;
}

/** The steps the script runs given what the earlier ones returned (it stops after a failed one). */
function expectedSteps(steps: Map<string, StepResult>, before: string | null): string[] {
  const order = ["add", "tree"];
  const failed = (name: string) => (steps.get(name)?.code ?? 0) !== 0;
  if (failed("add")) return ["add"];
  if (failed("tree") || before === null) return order;
  const tree = steps.get("tree")?.stdout.replace(/\n$/, "");
  if (tree !== before) {
    order.push("status");
    if (failed("status")) return order;
    order.push("numstat");
    if (failed("numstat")) return order;
  }
  order.push("ignored");
  return order;
}

interface Frame {
  name: string;
  code: number;
  text: string;
}

/** Splits one stream at its frame lines; `rest` is what follows the last one. */
function framed(output: string, mark: string): { frames: Frame[]; rest: string } {
  const frames: Frame[] = [];
  const pattern = new RegExp(`\\x00${mark} ([a-z]+) (\\d+)\\x00`, "g");
  let from = 0;
  for (const match of output.matchAll(pattern)) {
    frames.push({ name: match[1] as string, code: Number(match[2]), text: output.slice(from, match.index) });
    from = (match.index ?? 0) + match[0].length;
  }
  return { frames, rest: output.slice(from) };
}

import { TaskEvidenceStore } from "../../agent/evidence.js";
import { applyUndo, planUndo, UndoError } from "../../agent/undo.js";
import type { SqliteDatabase } from "../../storage/database.js";

export { UndoError };

/** What `/undo` would restore, shown before the person is asked. */
export interface UndoPreview {
  taskId: string;
  diff: string;
  files: { path: string; action: "restore" | "delete" }[];
  /** Files whose baseline was not kept (too large): left as they are. */
  unavailable: string[];
}

/**
 * The task `prefix` names, or without one the latest task that changed files (a later question that
 * changed nothing must not hide the change a person wants to take back).
 */
export function findUndoTask(store: TaskEvidenceStore, prefix: string): string {
  const ids = store.taskIds();
  if (prefix === "") {
    const latest = ids.find((id) => {
      const evidence = store.load(id);
      return evidence?.baseline != null && (evidence.after?.files.length ?? 0) > 0;
    });
    if (latest === undefined) throw new UndoError("no task has changed files yet; nothing to undo");
    return latest;
  }
  const matches = ids.filter((id) => id.startsWith(prefix));
  if (matches.length === 0) throw new UndoError(`no task ${prefix} with recorded changes`);
  if (matches.length > 1)
    throw new UndoError(`"${prefix}" matches ${matches.length} tasks; give more of the id`);
  return matches[0] as string;
}

function planFor(store: TaskEvidenceStore, taskId: string) {
  const evidence = store.load(taskId);
  if (!evidence) throw new UndoError(`cannot undo task ${taskId.slice(0, 8)}: no evidence recorded`);
  let plan: ReturnType<typeof planUndo>;
  try {
    plan = planUndo(evidence);
  } catch (error) {
    if (error instanceof UndoError)
      throw new UndoError(`cannot undo task ${taskId.slice(0, 8)}: ${error.message}`);
    throw error;
  }
  if (plan.changedSince.length > 0)
    throw new UndoError(
      `cannot undo task ${taskId.slice(0, 8)}: changed after it: ${plan.changedSince.join(", ")}`,
    );
  return { evidence, plan };
}

/**
 * The task `prefix` names (default: the latest that changed files) and what undoing it would do.
 * Refusals (no such task, files changed after it, already undone) are UndoErrors worded for people.
 */
export function previewUndo(database: SqliteDatabase, prefix: string): UndoPreview {
  const store = new TaskEvidenceStore(database);
  const taskId = findUndoTask(store, prefix.trim());
  const { plan } = planFor(store, taskId);
  return { taskId, diff: plan.diff, files: plan.files, unavailable: plan.unavailable };
}

/**
 * Restores the task's files, planned again now: whatever changed while the person read the diff
 * is refused rather than overwritten. Returns what was done, as a line for people.
 */
export function restoreUndo(database: SqliteDatabase, taskId: string): string {
  const store = new TaskEvidenceStore(database);
  const { evidence, plan } = planFor(store, taskId);
  applyUndo(evidence, plan);
  store.save(taskId, { ...evidence, undoneAt: new Date().toISOString() });
  return restoredLine(plan.files);
}

/** "restored notes.txt, removed new.txt": what undo did to each file. */
export function restoredLine(files: UndoPreview["files"]): string {
  return files.map((file) => `${file.action === "delete" ? "removed" : "restored"} ${file.path}`).join(", ");
}

export function undoQuestion(preview: UndoPreview): string {
  return `Restore ${preview.files.length} file(s) to how they were before task ${preview.taskId.slice(0, 8)}?`;
}

export function previewLines(preview: UndoPreview): string[] {
  return [
    preview.diff === "" ? "(no differences to show)" : preview.diff.trimEnd(),
    ...preview.unavailable.map(
      (path) => `note: ${path} was too large to keep at the baseline; it is left as it is`,
    ),
  ];
}

/**
 * `/undo [task]` in chat: the same as `mercury undo` — show the diff since the task's baseline, ask,
 * restore; refuse (naming the files) when they changed after the task.
 */
export async function undoInChat(
  database: SqliteDatabase,
  argument: string,
  info: (line: string) => void,
  ask: (question: string, choices: string[]) => Promise<string>,
): Promise<void> {
  try {
    const preview = previewUndo(database, argument);
    for (const line of previewLines(preview)) info(line);
    const answer = await ask(undoQuestion(preview), ["yes", "no"]);
    if (!isYes(answer)) {
      info("nothing restored");
      return;
    }
    info(restoreUndo(database, preview.taskId));
  } catch (error) {
    if (!(error instanceof UndoError)) throw error;
    info(error.message);
  }
}

export function isYes(answer: string): boolean {
  return /^y(es)?$/i.test(answer.trim());
}

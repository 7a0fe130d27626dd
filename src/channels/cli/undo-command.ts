import { TaskEvidenceStore } from "../../agent/evidence.js";
import { applyUndo, planUndo, UndoError } from "../../agent/undo.js";
import type { SqliteDatabase } from "../../storage/database.js";

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
  const store = new TaskEvidenceStore(database);
  const prefix = argument.trim();
  const ids = store.taskIds();
  const matches = prefix ? ids.filter((id) => id.startsWith(prefix)) : ids.slice(0, 1);
  if (matches.length !== 1) {
    info(
      matches.length === 0 ? "no task with recorded changes to undo" : `"${prefix}" matches several tasks`,
    );
    return;
  }
  const taskId = matches[0] as string;
  const evidence = store.load(taskId);
  try {
    if (!evidence) throw new UndoError("no evidence recorded");
    const plan = planUndo(evidence);
    if (plan.changedSince.length > 0) {
      info(`cannot undo task ${taskId.slice(0, 8)}: changed after it: ${plan.changedSince.join(", ")}`);
      return;
    }
    info(plan.diff === "" ? "(no differences to show)" : plan.diff.trimEnd());
    const answer = await ask(
      `Restore ${plan.files.length} file(s) to how they were before task ${taskId.slice(0, 8)}?`,
      ["yes", "no"],
    );
    if (answer.trim().toLowerCase() !== "yes") {
      info("nothing restored");
      return;
    }
    applyUndo(evidence, plan);
    store.save(taskId, { ...evidence, undoneAt: new Date().toISOString() });
    info(`restored: ${plan.files.map((file) => file.path).join(", ")}`);
  } catch (error) {
    if (!(error instanceof UndoError)) throw error;
    info(`cannot undo task ${taskId.slice(0, 8)}: ${error.message}`);
  }
}

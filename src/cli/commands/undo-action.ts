import { createInterface } from "node:readline/promises";
import { TaskEvidenceStore } from "../../agent/evidence.js";
import { applyUndo, planUndo, UndoError } from "../../agent/undo.js";
import { findUndoTask, restoredLine } from "../../channels/cli/undo-command.js";
import { loadSettings } from "../../config/settings.js";
import { openDatabase } from "../../storage/database.js";
import { exitCodes } from "../exit-codes.js";
import type { UndoOptions } from "./undo.js";

export async function runUndo(taskArgument: string | undefined, options: UndoOptions): Promise<number> {
  const { paths } = loadSettings();
  const database = openDatabase(paths.database);
  try {
    const store = new TaskEvidenceStore(database);
    let taskId: string;
    try {
      taskId = findUndoTask(store, taskArgument ?? "");
    } catch (error) {
      if (!(error instanceof UndoError)) throw error;
      process.stderr.write(`mercury: ${error.message}\n`);
      // A script asked for one document: it gets it even when there is nothing to undo.
      if (options.json)
        process.stdout.write(`${JSON.stringify({ taskId: null, applied: false, error: error.message })}\n`);
      return exitCodes.usage;
    }
    const evidence = store.load(taskId);
    if (!evidence) throw new UndoError(`no evidence recorded for task ${taskId}`);
    let plan: ReturnType<typeof planUndo>;
    try {
      plan = planUndo(evidence);
    } catch (error) {
      if (!(error instanceof UndoError)) throw error;
      process.stderr.write(`mercury: cannot undo task ${taskId}: ${error.message}\n`);
      if (options.json)
        process.stdout.write(
          `${JSON.stringify({ taskId, applied: false, error: `cannot undo task ${taskId}: ${error.message}` })}\n`,
        );
      return exitCodes.failure;
    }
    const report = (applied: boolean) =>
      options.json ? process.stdout.write(`${JSON.stringify({ taskId, ...plan, applied })}\n`) : undefined;
    if (plan.changedSince.length > 0) {
      report(false);
      process.stderr.write(
        `mercury: refusing to undo task ${taskId}: these files changed after the task, and restoring them would lose that work: ${plan.changedSince.join(", ")}\n`,
      );
      return exitCodes.failure;
    }
    if (!options.json) {
      process.stdout.write(plan.diff === "" ? "(no differences to show)\n" : plan.diff);
      for (const path of plan.unavailable)
        process.stderr.write(`note: ${path} was too large to keep at the baseline; it is left as it is\n`);
    }
    if (!options.yes) {
      if (!process.stdin.isTTY) {
        report(false);
        process.stderr.write(
          `mercury: nothing restored; rerun with --yes to restore ${plan.files.length} file(s)\n`,
        );
        return exitCodes.usage;
      }
      const prompt = createInterface({ input: process.stdin, output: process.stderr });
      const answer = await prompt.question(
        `Restore ${plan.files.length} file(s) to how they were before task ${taskId.slice(0, 8)}? [y/N] `,
      );
      prompt.close();
      if (!/^y(es)?$/i.test(answer.trim())) {
        process.stderr.write("nothing restored\n");
        return exitCodes.success;
      }
    }
    applyUndo(evidence, plan);
    store.save(taskId, { ...evidence, undoneAt: new Date().toISOString() });
    report(true);
    if (!options.json) process.stderr.write(`${restoredLine(plan.files)}\n`);
    return exitCodes.success;
  } finally {
    database.close();
  }
}

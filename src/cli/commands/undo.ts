import type { Command } from "commander";

export interface UndoOptions {
  yes?: boolean;
  json?: boolean;
}

export function registerUndoCommand(program: Command): void {
  program
    .command("undo")
    .description("show what a task changed since its baseline and restore those files")
    .argument("[task]", "task id (or its first characters); default: the latest task that changed files")
    .option("--yes", "restore without asking")
    .option("--json", "print one JSON document (the plan, and whether it was applied)")
    .action(async (task: string | undefined, options: UndoOptions) => {
      const { runUndo } = await import("./undo-action.js");
      process.exitCode = await runUndo(task, options);
    });
}

import type { Command } from "commander";

export interface TasksOptions {
  json?: boolean;
  status?: string;
  session?: string;
  limit?: string;
}

export function registerTasksCommand(program: Command): void {
  program
    .command("tasks")
    .description(
      "the work ledger's tasks, the most recently written first (a status change or a continue moves a task to the top), with their session ids",
    )
    .option(
      "--status <status>",
      "only tasks with this status (running, paused, completed, responded, failed, …)",
    )
    .option("--session <id>", "only the tasks of this session")
    .option("--limit <n>", "how many to show (default 20)")
    .option("--json", "print one JSON document")
    .action(async (options: TasksOptions) => {
      const { listTasks } = await import("./tasks-action.js");
      process.exitCode = await listTasks(options);
    });
}

import { type LedgerStatus, ledgerStatuses, WorkLedger } from "../../agent/ledger.js";
import { liveOwner } from "../../agent/task-owner.js";
import { relativeTime } from "../../channels/cli/relative-time.js";
import { ConfigError } from "../../config/errors.js";
import { loadSettings } from "../../config/settings.js";
import { openCurrentDatabase } from "../../storage/connection.js";
import { exitCodes } from "../exit-codes.js";
import type { TasksOptions } from "./tasks.js";

/** The order the list is in, said in the text and the JSON so nobody reads it as creation order. */
const orderWords = "most recently written first";

/**
 * `mercury tasks`: the ledger's tasks in the order "latest" means for "continue", `--continue` and
 * `mercury undo` (every write moves a task to the end of the rowid sequence), not by creation time:
 * a task continued after a newer one is the latest again, and a clock set back cannot reorder it.
 */
export async function listTasks(options: TasksOptions): Promise<number> {
  const status = statusOption(options.status);
  const limit = limitOption(options.limit);
  const { paths, home } = loadSettings();
  const database = await openCurrentDatabase(paths.database);
  try {
    const listed = new WorkLedger(database).list({
      by: "write",
      limit,
      ...(status ? { statuses: [status] } : {}),
      ...(options.session !== undefined ? { sessionId: options.session } : {}),
    });
    // "running" is also what a kill -9 leaves: a task whose process is gone is said to be interrupted
    // (the next daemon start or a "continue" resumes it), never shown as still going.
    const tasks = listed.map((task) => ({
      ...task,
      interrupted: task.status === "running" && liveOwner(home, task.id) === null,
    }));
    if (options.json) {
      process.stdout.write(`${JSON.stringify({ ok: true, order: orderWords, tasks })}\n`);
      return exitCodes.success;
    }
    if (tasks.length === 0) {
      process.stdout.write("no tasks\n");
      return exitCodes.success;
    }
    process.stdout.write(`tasks, ${orderWords}:\n`);
    for (const task of tasks) {
      const input = task.input.replace(/\s+/g, " ").trim();
      process.stdout.write(
        `${task.id.slice(0, 8)}  ${(task.interrupted ? "interrupted" : task.status).padEnd(9)}  session ${task.sessionId}  ${task.channel}  written ${relativeTime(task.updatedAt)}  ${input.length > 60 ? `${input.slice(0, 57)}…` : input}\n`,
      );
    }
    return exitCodes.success;
  } finally {
    database.close();
  }
}

function statusOption(value: string | undefined): LedgerStatus | undefined {
  if (value === undefined) return undefined;
  const status = ledgerStatuses.find((known) => known === value);
  if (status === undefined) {
    throw new ConfigError(`--status "${value}": expected one of ${ledgerStatuses.join(", ")}.`);
  }
  return status;
}

function limitOption(value: string | undefined): number {
  if (value === undefined) return 20;
  const limit = Number(value);
  if (!Number.isInteger(limit) || limit < 1) {
    throw new ConfigError(`--limit "${value}": expected a whole number of at least 1.`);
  }
  return limit;
}

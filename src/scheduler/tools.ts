import { z } from "zod";
import type { Clock } from "../agent/clock.js";
import type { SqliteDatabase } from "../storage/database.js";
import type { ToolContext, ToolDefinition, ToolResult } from "../tools/types.js";
import type { JobStore } from "./jobs.js";
import { type JobRequest, jobRequestSchema } from "./request.js";

/**
 * What the tools do when called: loaded on the first call, not with the tool list every task
 * carries (timing rules and croner, delivery, workspace checks).
 */
async function toolWork() {
  const [create, authorization, delivery, timing, toolNames] = await Promise.all([
    import("./create.js"),
    import("./authorization.js"),
    import("./delivery.js"),
    import("./timing.js"),
    import("./tool-names.js"),
  ]);
  return {
    createJob: create.createJob,
    describeJobRequest: create.describeJobRequest,
    presentJob: create.presentJob,
    validateWorkspace: authorization.validateWorkspace,
    validateDeliveryTarget: delivery.validateDeliveryTarget,
    parseSchedule: timing.parseSchedule,
    systemTimezone: timing.systemTimezone,
    validateToolNames: toolNames.validateToolNames,
  };
}

export interface SchedulerToolDeps {
  database: SqliteDatabase;
  clock: Clock;
  /** MERCURY_HOME and the user's home: a job's workspace is never either. */
  mercuryHome: string;
  userHome: string;
}

const noOneToAsk =
  "changing scheduled jobs needs the user's confirmation and nobody can answer here (a scheduled run, a sub-agent or a non-interactive run); tell the user to use `mercury schedule add` or to ask in chat";

/** Where results go by default: the Telegram chat this task came from, the terminal otherwise. */
function defaultDelivery(database: SqliteDatabase, taskId: string): string {
  const row = z
    .object({ chat_id: z.number() })
    .optional()
    .parse(database.prepare("SELECT chat_id FROM telegram_tasks WHERE task_id = ?").get(taskId));
  return row ? `telegram:${row.chat_id}` : "terminal";
}

async function confirm(context: ToolContext, question: string): Promise<boolean> {
  if (!context.askUser) return false;
  const answer = await context.askUser(question, ["yes", "no"]);
  return /^\s*(y|yes|ok|approve|confirm)\b/i.test(answer);
}

/** schedule_task, list_scheduled_tasks, cancel_scheduled_task: every change is confirmed by the user. */
export function schedulerTools(deps: SchedulerToolDeps): ToolDefinition[] {
  // The job store (its row schemas) loads with the first call, like the tools' work.
  let opened: Promise<JobStore> | undefined;
  const jobStore = (): Promise<JobStore> => {
    opened ??= import("./jobs.js").then(({ JobStore }) => new JobStore(deps.database, deps.clock));
    return opened;
  };
  const scheduleTask: ToolDefinition<JobRequest> = {
    name: "schedule_task",
    description:
      "Schedule a task to run later or repeatedly (cron in a time zone, every N minutes, or once). The user is always asked to confirm before the job is created. Runs use the user's permissions with no one to approve anything, so keep the task to what needs no approval. Returns the job with its id and next due time.",
    inputSchema: jobRequestSchema,
    mutating: true,
    async execute(input, context): Promise<ToolResult> {
      if (!context.askUser) return { ok: false, error: noOneToAsk };
      const {
        createJob,
        describeJobRequest,
        presentJob,
        validateWorkspace,
        validateDeliveryTarget,
        parseSchedule,
        systemTimezone,
        validateToolNames,
      } = await toolWork();
      const store = await jobStore();
      const nowMs = deps.clock.now().getTime();
      const ownChat = defaultDelivery(deps.database, context.taskId);
      const delivery = input.delivery ?? ownChat;
      // Only the owner may send results elsewhere; anyone else's job reports to the chat it came from.
      if (context.userKey !== "owner" && delivery !== ownChat && delivery !== "none")
        return { ok: false, error: `results of your jobs can only go to this chat (${ownChat}) or "none"` };
      let workspace: string;
      try {
        parseSchedule(input.schedule, { timezone: input.timezone ?? systemTimezone(), nowMs });
        workspace = validateWorkspace(input.workspace ?? context.cwd, deps.userHome, deps.mercuryHome);
        validateDeliveryTarget(delivery);
        // Before the user is asked to confirm: a job narrowed to a misspelt tool could do nothing.
        if (input.permissions?.tools) validateToolNames(input.permissions.tools, "permissions.tools");
      } catch (error) {
        return { ok: false, error: error instanceof Error ? error.message : String(error) };
      }
      if (
        !(await confirm(
          context,
          `${describeJobRequest(input, workspace, delivery)}. Create this scheduled job?`,
        ))
      )
        return { ok: false, error: "the user did not confirm; no job was created" };
      try {
        const job = createJob(
          { ...input, workspace, delivery },
          {
            store,
            clock: deps.clock,
            owner: context.userKey,
            createdBy: `chat (${context.userKey}, task ${context.taskId})`,
            defaultWorkspace: workspace,
            defaultDelivery: delivery,
            userHome: deps.userHome,
            mercuryHome: deps.mercuryHome,
          },
        );
        return { ok: true, output: JSON.stringify({ created: presentJob(job) }) };
      } catch (error) {
        return { ok: false, error: error instanceof Error ? error.message : String(error) };
      }
    },
  };
  const listTasks: ToolDefinition<Record<string, never>> = {
    name: "list_scheduled_tasks",
    description: "List the user's scheduled jobs: id, schedule, status, next due time, last outcome.",
    inputSchema: z.object({}).strict(),
    mutating: false,
    async execute(_input, context) {
      const { presentJob } = await toolWork();
      const store = await jobStore();
      const jobs = store.list({ owner: context.userKey }).map((job) => ({
        ...presentJob(job),
        lastRun:
          store
            .runs(job.id, 1)
            .map((run) => ({ timing: run.timing, status: run.status, outcome: run.outcome }))[0] ?? null,
      }));
      return { ok: true, output: JSON.stringify({ jobs }) };
    },
  };
  const cancelTask: ToolDefinition<{ id: string }> = {
    name: "cancel_scheduled_task",
    description: "Remove one of the user's scheduled jobs (its history stays). The user is asked to confirm.",
    inputSchema: z.object({ id: z.string().min(1).describe("job id from list_scheduled_tasks") }).strict(),
    mutating: true,
    async execute(input, context) {
      if (!context.askUser) return { ok: false, error: noOneToAsk };
      const { presentJob } = await toolWork();
      const store = await jobStore();
      const job = store.get(input.id);
      if (!job || job.owner !== context.userKey || job.status === "removed")
        return { ok: false, error: `no scheduled job "${input.id}" of yours; call list_scheduled_tasks` };
      if (!(await confirm(context, `Remove the scheduled job ${job.id} ("${job.name}")?`)))
        return { ok: false, error: "the user did not confirm; the job is unchanged" };
      return {
        ok: true,
        output: JSON.stringify({ removed: presentJob(store.setStatus(job.id, "removed", null)) }),
      };
    },
  };
  return [scheduleTask, listTasks, cancelTask] as ToolDefinition[];
}

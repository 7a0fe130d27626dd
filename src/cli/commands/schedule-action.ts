import { homedir } from "node:os";
import { systemClock } from "../../agent/clock.js";
import { WorkLedger } from "../../agent/ledger.js";
import { DeliveryLedger } from "../../agent/ledger-deliveries.js";
import { relativeTime } from "../../channels/cli/relative-time.js";
import { loadSettings } from "../../config/settings.js";
import { readLiveLock } from "../../daemon/lock.js";
import { createJob, type JobRequest, jobRequestSchema, presentJob } from "../../scheduler/create.js";
import { createDaemonScheduler } from "../../scheduler/daemon.js";
import { formatDuration, JobNotFoundError, JobStore, type ScheduledRun } from "../../scheduler/jobs.js";
import { missedNote } from "../../scheduler/missed.js";
import { interruptedReason, runInterrupted } from "../../scheduler/run-owner.js";
import { gapNote, ScheduleError } from "../../scheduler/timing.js";
import { openDatabase } from "../../storage/database.js";
import { exitCodes } from "../exit-codes.js";
import type { ScheduleAddOptions } from "./schedule.js";

const out = (text: string) => process.stdout.write(text);
const err = (text: string) => process.stderr.write(text);

/** Runs one `mercury schedule` subcommand; returns the exit code. */
export async function scheduleAction(name: string, args: unknown[]): Promise<number> {
  const settings = loadSettings();
  const database = openDatabase(settings.paths.database);
  const store = new JobStore(database, systemClock);
  try {
    switch (name) {
      case "add":
        return add(store, settings, String(args[0]), String(args[1]), args[2] as ScheduleAddOptions);
      case "list": {
        const jobs = store.list().map((job) => ({
          ...presentJob(job),
          interruptedRuns: store
            .runningRuns(job.id)
            .filter((run) => runInterrupted(run, settings.home))
            .map((run) => run.id),
          missed: missedNote(store, job.id),
        }));
        if ((args[0] as { json?: boolean }).json) out(`${JSON.stringify({ jobs })}\n`);
        else if (jobs.length === 0)
          out('No scheduled jobs. Add one: mercury schedule add "every 30 minutes" "…"\n');
        else
          for (const job of jobs) {
            out(
              `${job.id}  ${job.status.padEnd(6)}  ${job.schedule}  next ${whenDue(job.nextDueAt, "-", job.nextDueLocal)}  ${job.name}\n`,
            );
            for (const runId of job.interruptedRuns)
              out(`  run ${runId} ${interruptedReason}; see \`mercury schedule history ${job.id}\`\n`);
            if (job.missed) out(`  ${job.missed}; see \`mercury schedule history ${job.id}\`\n`);
          }
        return exitCodes.success;
      }
      case "show": {
        const options = args[1] as { json?: boolean };
        const job = presentJob(store.require(String(args[0])));
        const runs = store.runs(job.id, 5).map((run) => presentRun(run, settings.home));
        if (options.json) out(`${JSON.stringify({ job, runs })}\n`);
        else {
          for (const [key, value] of Object.entries(job))
            out(
              `${key}: ${typeof value === "object" && value !== null ? JSON.stringify(value) : String(value)}\n`,
            );
          for (const run of runs) out(`  ${runLine(run)}\n`);
        }
        return exitCodes.success;
      }
      case "pause":
      case "resume":
      case "remove": {
        const id = String(args[0]);
        const before = store.require(id);
        const status = name === "pause" ? "paused" : name === "resume" ? "active" : "removed";
        const refusal = statusChangeRefusal(id, name, before.status);
        if (refusal !== null) {
          err(`mercury: ${refusal}\n`);
          return exitCodes.failure;
        }
        const job = store.setStatus(
          id,
          status,
          name === "pause" ? "paused by the owner (mercury schedule pause)" : null,
        );
        if ((args[1] as { json?: boolean }).json) out(`${JSON.stringify({ job: presentJob(job) })}\n`);
        else {
          out(`${id} ${before.status === status ? "was already" : "is"} ${job.status}.\n`);
          // A pause or remove stops what is due next, not a run already going: say so, or the run's
          // later result reads as if the job had not been stopped.
          for (const running of store.runningRuns(id))
            out(
              runInterrupted(running, settings.home)
                ? `Its run ${running.id} (started ${new Date(running.firedMs).toISOString()}) was ${interruptedReason}; it finishes and is reported (\`mercury schedule history ${id}\`).\n`
                : `Its run ${running.id} (started ${new Date(running.firedMs).toISOString()}) is still going; it finishes and is reported (\`mercury schedule history ${id}\`).\n`,
            );
        }
        return exitCodes.success;
      }
      case "history": {
        const options = args[1] as { json?: boolean; limit?: string };
        const job = store.require(String(args[0]));
        const limit = Number(options.limit ?? "20");
        if (!Number.isInteger(limit) || limit < 1) {
          err(`mercury: --limit must be a positive whole number, got "${options.limit}"\n`);
          return exitCodes.usage;
        }
        const runs = store.runs(job.id, limit).map((run) => presentRun(run, settings.home));
        if (options.json) out(`${JSON.stringify({ job: presentJob(job), runs })}\n`);
        else if (runs.length === 0)
          out(
            `No runs of ${job.id} yet; next due ${whenDue(presentJob(job).nextDueAt, "never", presentJob(job).nextDueLocal)}.\n`,
          );
        else for (const run of runs) out(`${runLine(run)}\n`);
        return exitCodes.success;
      }
      case "run-now":
        return await runNow(store, settings, String(args[0]), args[1] as { json?: boolean });
      default:
        err(`unknown schedule command ${name}\n`);
        return exitCodes.usage;
    }
  } catch (error) {
    if (error instanceof JobNotFoundError) {
      err(`mercury: ${error.message}\n`);
      return exitCodes.failure;
    }
    throw error;
  } finally {
    database.close();
  }
}

function add(
  store: JobStore,
  settings: ReturnType<typeof loadSettings>,
  when: string,
  task: string,
  options: ScheduleAddOptions,
): number {
  const numbers: Partial<Record<"graceMinutes" | "runTokens" | "runUsd" | "dayTokens" | "dayUsd", number>> =
    {};
  for (const [key, flag] of [
    ["graceMinutes", "--grace-minutes"],
    ["runTokens", "--run-tokens"],
    ["runUsd", "--run-usd"],
    ["dayTokens", "--day-tokens"],
    ["dayUsd", "--day-usd"],
  ] as const) {
    const raw = options[key];
    if (raw === undefined) continue;
    const value = Number(raw);
    if (raw.trim() === "" || !Number.isFinite(value) || value <= 0) {
      err(`mercury: ${flag} must be a positive number, got "${raw}"\n`);
      return exitCodes.usage;
    }
    if ((key === "runTokens" || key === "dayTokens") && !Number.isInteger(value)) {
      err(`mercury: ${flag} is a number of tokens, a whole number; got "${raw}"\n`);
      return exitCodes.usage;
    }
    numbers[key] = value;
  }
  const request: JobRequest = {
    schedule: when,
    task,
    ...(options.name !== undefined ? { name: options.name.trim() } : {}),
    ...(options.tz ? { timezone: options.tz } : {}),
    ...(options.workspace ? { workspace: options.workspace } : {}),
    ...(options.deliver ? { delivery: options.deliver } : {}),
    ...(options.silent ? { silent: true } : {}),
    ...numbers,
    ...(options.tools !== undefined
      ? {
          permissions: {
            tools: options.tools
              .split(",")
              .map((tool) => tool.trim())
              .filter(Boolean),
          },
        }
      : {}),
  };
  if (when.trim() === "") {
    err(
      'mercury: <when> is empty; write "every 30 minutes", 5 cron fields such as "0 9 * * 1-5", "at 2026-12-24T18:00" or "in 20 minutes"\n',
    );
    return exitCodes.usage;
  }
  if (options.name !== undefined && options.name.trim() === "") {
    err("mercury: --name is empty; give a short name, or leave --name out to use the task's start\n");
    return exitCodes.usage;
  }
  if (task.trim() === "") {
    err(
      'mercury: the task is empty; say what the job should do, e.g. "check the build and tell me if it fails"\n',
    );
    return exitCodes.usage;
  }
  const parsed = jobRequestSchema.safeParse(request);
  if (!parsed.success) {
    err(
      `mercury: ${parsed.error.issues.map((issue) => `${flagOf(issue.path)}: ${issue.message}`).join("; ")}\n`,
    );
    return exitCodes.usage;
  }
  try {
    const job = createJob(parsed.data, {
      store,
      clock: systemClock,
      owner: "owner",
      createdBy: "cli",
      defaultWorkspace: process.cwd(),
      defaultDelivery: "terminal",
      userHome: settings.env.HOME && settings.env.HOME.trim() !== "" ? settings.env.HOME : homedir(),
      mercuryHome: settings.home,
      toolsFlag: "--tools",
    });
    const shown = presentJob(job);
    const note = gapNote(when, job.spec);
    if (options.json) out(`${JSON.stringify({ job: shown, ...(note ? { note } : {}) })}\n`);
    else {
      out(
        `Added ${job.id}: ${shown.schedule}, next at ${whenDue(shown.nextDueAt, "never", shown.nextDueLocal)}.\n`,
      );
      if (note) out(`Note: ${note}.\n`);
    }
    return exitCodes.success;
  } catch (error) {
    if (error instanceof ScheduleError || error instanceof Error) {
      err(`mercury: ${error.message}\n`);
      return exitCodes.usage;
    }
    throw error;
  }
}

/** The command-line spelling of a request field, so an error names what the person typed. */
function flagOf(path: readonly PropertyKey[]): string {
  const field = String(path[0] ?? "");
  const flags: Record<string, string> = {
    schedule: "<when>",
    task: "<task>",
    name: "--name",
    timezone: "--tz",
    workspace: "--workspace",
    delivery: "--deliver",
    graceMinutes: "--grace-minutes",
    runTokens: "--run-tokens",
    runUsd: "--run-usd",
    dayTokens: "--day-tokens",
    dayUsd: "--day-usd",
    permissions: "--tools",
  };
  return flags[field] ?? path.map(String).join(".");
}

/**
 * Why pause, resume or remove cannot apply to a job in this status, or null when it can. A removed
 * job stays removed and a done one-shot job has nothing left to run: answering "is removed." to a
 * pause read as if the pause had worked.
 */
function statusChangeRefusal(id: string, command: string, status: string): string | null {
  if (status === "removed" && command !== "remove")
    return `job ${id} was removed; nothing to ${command} (add it again with \`mercury schedule add\`)`;
  if (status === "done" && command !== "remove")
    return `job ${id} is done (its only due time has passed); nothing to ${command}`;
  if (command === "resume" && status !== "paused")
    return `job ${id} is ${status}, not paused; nothing to resume`;
  return null;
}

/**
 * With a daemon running, the run is claimed here and executed by the daemon at its next tick (it
 * owns the channels); without one, it runs in this process and the result is printed.
 */
async function runNow(
  store: JobStore,
  settings: ReturnType<typeof loadSettings>,
  id: string,
  options: { json?: boolean },
): Promise<number> {
  const job = store.require(id);
  if (job.status === "removed") {
    err(`job ${id} was removed; add it again\n`);
    return exitCodes.failure;
  }
  if (readLiveLock(settings.paths.lock)) {
    const run = store.claimManual(job, Date.now());
    if (options.json)
      out(`${JSON.stringify({ run: presentRun(run, settings.home), executedBy: "daemon" })}\n`);
    else out(`Run ${run.id} queued; the daemon runs it now. See \`mercury schedule history ${id}\`.\n`);
    return exitCodes.success;
  }
  const { createApp } = await import("../../app/container.js");
  const app = createApp();
  try {
    const ledger = new WorkLedger(app.database, app.clock);
    const deliveries = new DeliveryLedger(app.database, app.clock);
    const { store: appStore, runner } = createDaemonScheduler(app, {
      ledger,
      deliveries,
      logger: app.logger,
      workspace: job.workspace,
      flushTerminal: () => undefined,
    });
    const run = appStore.claimManual(appStore.require(id), app.clock.now().getTime());
    await runner.start(appStore.require(id), run);
    const finished = presentRun(appStore.requireRun(run.id), settings.home);
    if (options.json) out(`${JSON.stringify({ run: finished, executedBy: "cli" })}\n`);
    else out(`${runLine(finished)}\n`);
    return finished.outcome === "completed" || finished.outcome === "responded"
      ? exitCodes.success
      : exitCodes.failure;
  } finally {
    app.close();
  }
}

/**
 * One run as list, show and history give it. A run marked running whose process is gone (kill -9,
 * a crash) is shown "interrupted" with why and what resumes it, never as still running.
 */
export function presentRun(run: ScheduledRun, home: string) {
  const interrupted = runInterrupted(run, home);
  return {
    id: run.id,
    jobId: run.jobId,
    dueAt: new Date(run.dueMs).toISOString(),
    firstDueAt: new Date(run.firstDueMs).toISOString(),
    collapsed: run.collapsed,
    firedAt: new Date(run.firedMs).toISOString(),
    lateMs: run.lateMs,
    timing: run.timing,
    status: interrupted ? ("interrupted" as const) : run.status,
    taskId: run.taskId,
    attempts: run.attempts,
    nextAttemptAt: run.nextAttemptMs === null ? null : new Date(run.nextAttemptMs).toISOString(),
    outcome: run.outcome,
    reason: interrupted
      ? run.reason
        ? `${interruptedReason}; ${run.reason}`
        : interruptedReason
      : run.reason,
    usage: run.usage,
    refusals: run.refusals,
    delivery: run.delivery,
  };
}

function runLine(run: ReturnType<typeof presentRun>): string {
  const late = run.timing === "late" || run.timing === "missed" ? ` ${formatDuration(run.lateMs)} late` : "";
  const collapsed = run.collapsed > 1 ? ` (${run.collapsed} due times collapsed)` : "";
  const tokens = run.usage.inputTokens + run.usage.outputTokens;
  return `${run.dueAt}  ${run.timing}${late}${collapsed}  ${run.status}${run.outcome ? `/${run.outcome}` : ""}  ${tokens} tokens $${run.usage.costUsd.toFixed(4)}${run.delivery ? `  ${run.delivery}` : ""}${run.reason ? `  — ${run.reason}` : ""}`;
}

/**
 * A due time for people: the exact instant, the wall clock of the job's zone when it has one (a cron
 * at 09:00 Berlin reads 08:00Z in winter and 07:00Z in summer), and how far away it is ("in 20 min").
 */
function whenDue(at: string | null, none: string, local: string | null = null): string {
  return at === null ? none : `${at} (${local ? `${local}, ` : ""}${relativeTime(at)})`;
}

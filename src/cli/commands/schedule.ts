import type { Command } from "commander";

export interface ScheduleAddOptions {
  name?: string;
  tz?: string;
  workspace?: string;
  deliver?: string;
  silent?: boolean;
  graceMinutes?: string;
  runTokens?: string;
  runUsd?: string;
  dayTokens?: string;
  dayUsd?: string;
  tools?: string;
  json?: boolean;
}

/** `mercury schedule add|list|show|pause|resume|remove|run-now|history`; the work is in schedule-action.ts. */
export function registerScheduleCommands(program: Command): void {
  const schedule = program.command("schedule").description("jobs that run on a schedule, and their history");
  const action =
    <A extends unknown[]>(name: string) =>
    async (...args: A) => {
      const module = await import("./schedule-action.js");
      process.exitCode = await module.scheduleAction(name, args.slice(0, -1));
    };

  schedule
    .command("add")
    .description('add a job: `mercury schedule add "every 30 minutes" "check the build"`')
    .argument(
      "<when>",
      'schedule: "every N minutes", 5 cron fields, "at 2026-12-24T18:00" or "in 20 minutes"',
    )
    .argument("<task>", "what to do each time")
    .option("--name <name>", "a short name")
    .option("--tz <zone>", "IANA time zone for cron fields and local times (default: the system's)")
    .option(
      "--workspace <dir>",
      "folder the job runs in (default: current directory; never your home itself)",
    )
    .option("--deliver <target>", 'where results go: "terminal", "telegram:<chat id>" or "none"', "terminal")
    .option("--silent", "deliver only when a run does not succeed")
    .option("--grace-minutes <n>", "how late a run may still start (default: half the period, 2 min–2 h)")
    .option("--run-tokens <n>", "token budget of one run")
    .option("--run-usd <n>", "USD budget of one run")
    .option("--day-tokens <n>", "token budget per day (UTC)")
    .option("--day-usd <n>", "USD budget per day (UTC)")
    .option("--tools <names>", "comma-separated: only these tools (narrows, never widens)")
    .option("--json", "print one JSON document")
    .action(action("add"));
  schedule
    .command("list")
    .description("every job")
    .option("--json", "print one JSON document")
    .action(action("list"));
  for (const [name, description] of [
    ["show", "one job and its last runs"],
    ["pause", "pause a job (due times while paused are recorded as skipped)"],
    ["resume", "resume a paused job (no replay of what was skipped)"],
    ["remove", "remove a job (its history stays)"],
    ["run-now", "run a job once now (by the daemon when it runs, here otherwise)"],
  ] as const) {
    schedule
      .command(name)
      .description(description)
      .argument("<id>", "job id (see `mercury schedule list`)")
      .option("--json", "print one JSON document")
      .action(action(name));
  }
  schedule
    .command("history")
    .description("runs of a job: due, fired, on-time/late/missed/skipped, outcome, usage, delivery")
    .argument("<id>", "job id")
    .option("--limit <n>", "how many runs", "20")
    .option("--json", "print one JSON document")
    .action(action("history"));
}

import type { MercuryApp } from "../../app/container.js";
import { formatDuration, JobStore } from "../../scheduler/jobs.js";
import { missedNote } from "../../scheduler/missed.js";
import { describeSpec } from "../../scheduler/timing.js";

/**
 * `/schedule` in chat: the owner's jobs, read from the same store as `mercury schedule list`.
 * With words after it, the words go to the agent as a task (it asks before creating a job).
 */
export function scheduleLines(app: MercuryApp, nowMs: number): string[] {
  const jobs = new JobStore(app.database, app.clock).list({ owner: "owner" });
  if (jobs.length === 0)
    return [
      "No scheduled jobs. Say what to schedule (`/schedule every weekday at 9:00 summarize my inbox`),",
      'or use `mercury schedule add "every 30 minutes" "…"`.',
    ];
  const store = new JobStore(app.database, app.clock);
  return jobs.flatMap((job) => {
    const next =
      job.nextDueMs === null
        ? "no next run"
        : job.nextDueMs <= nowMs
          ? "due now"
          : `next in ${formatDuration(job.nextDueMs - nowMs)}`;
    const reason = job.statusReason ? ` (${job.statusReason})` : "";
    const missed = missedNote(store, job.id);
    return [
      `${job.id}  ${job.status}${reason}  ${describeSpec(job.spec)}  ${next}  ${job.name}`,
      ...(missed ? [`  ${missed}`] : []),
    ];
  });
}

/** `/agents` lists this process's sub-agents; `/agents stop <id>` stops one (and its own children). */
export function agentsLines(app: MercuryApp, argument: string): string[] {
  const [verb, id] = argument.trim().split(/\s+/);
  if (verb === "stop") {
    if (!id) return ["usage: /agents stop <id> (the id is in /agents)"];
    return app.subagents.stop(id, "stopped with /agents stop")
      ? [`stopping ${id}`]
      : [`no running sub-agent ${id}; see /agents`];
  }
  if (verb) return [`unknown /agents ${verb}: use /agents or /agents stop <id>`];
  const agents = app.subagents.list("owner");
  if (agents.length === 0) return ["No sub-agents have run in this session."];
  return agents.map((agent) => `${agent.id}  ${agent.status}  ${agent.task}`);
}

import { z } from "zod";
import { describeSandbox } from "../../sandbox/describe.js";

/** The daemon's status reply, checked before it is printed (loaded only when a daemon answered). */
const statusShape = z
  .object({
    pid: z.number(),
    uptimeSeconds: z.number(),
    version: z.string(),
    channels: z.array(
      z.object({
        name: z.string(),
        state: z.string(),
        restarts: z.number(),
        lastError: z.string().nullable(),
      }),
    ),
    tasks: z.object({
      active: z.array(z.object({ id: z.string(), status: z.string(), input: z.string() })),
      paused: z.array(z.object({ id: z.string(), input: z.string(), reason: z.string().nullable() })),
    }),
    pendingApprovals: z.array(z.object({ summary: z.string() })),
    budget: z.object({
      tokensToday: z.number(),
      costUsdToday: z.number(),
      dailyTokens: z.number().nullable(),
    }),
    sandbox: z.union([
      z.object({
        available: z.literal(true),
        kind: z.enum(["bubblewrap", "sandbox-exec"]),
        network: z
          .union([
            z.object({ available: z.literal(true), kind: z.literal("slirp4netns") }),
            z.object({ available: z.literal(false), reason: z.string(), fix: z.string() }),
          ])
          .optional(),
      }),
      z.object({ available: z.literal(false), reason: z.string(), fix: z.string() }),
    ]),
  })
  .passthrough();

export function formatStatus(raw: unknown): string {
  const status = statusShape.parse(raw);
  const lines = [
    `mercury ${status.version} running (pid ${status.pid}, up ${formatDuration(status.uptimeSeconds)})`,
    `channels: ${status.channels.length === 0 ? "terminal socket only" : status.channels.map((c) => `${c.name} ${c.state}${c.restarts ? ` (${c.restarts} restarts)` : ""}${c.lastError ? ` — ${c.lastError}` : ""}`).join(", ")}`,
    `tasks: ${status.tasks.active.length} active, ${status.tasks.paused.length} paused`,
    ...status.tasks.active.map(
      (task) => `  ${task.status} ${task.id.slice(0, 8)} ${task.input.slice(0, 60)}`,
    ),
    ...status.tasks.paused.map(
      (task) =>
        `  paused  ${task.id.slice(0, 8)} ${task.input.slice(0, 60)}${task.reason ? ` — ${task.reason}` : ""}`,
    ),
    `approvals pending: ${status.pendingApprovals.length}`,
    `sandbox: ${describeSandbox(status.sandbox)}`,
    `budget today: ${status.budget.tokensToday} tokens${status.budget.dailyTokens === null ? "" : ` of ${status.budget.dailyTokens}`}, $${status.budget.costUsdToday.toFixed(4)}`,
  ];
  return `${lines.join("\n")}\n`;
}

function formatDuration(seconds: number): string {
  if (seconds < 60) return `${seconds}s`;
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m ${seconds % 60}s`;
  return `${Math.floor(seconds / 3600)}h ${Math.floor((seconds % 3600) / 60)}m`;
}

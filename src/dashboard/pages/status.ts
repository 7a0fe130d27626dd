import { existsSync, readFileSync } from "node:fs";
import type { Hono } from "hono";
import { z } from "zod";
import type { DashboardEnv } from "../guard.js";
import { html, path } from "../html.js";
import type { DashboardServices } from "../services.js";
import { formatTime, page, table } from "./layout.js";

const statusShape = z
  .object({
    pid: z.number(),
    version: z.string(),
    startedAt: z.string(),
    uptimeSeconds: z.number(),
    home: z.string(),
    channels: z.array(z.object({ name: z.string(), state: z.string() }).passthrough()),
    tasks: z.object({
      active: z.array(z.object({ id: z.string(), input: z.string(), status: z.string() }).passthrough()),
      counts: z.record(z.string(), z.number()),
    }),
    pendingApprovals: z.array(z.object({ id: z.string(), summary: z.string() }).passthrough()),
    budget: z.object({
      tokensToday: z.number(),
      costUsdToday: z.number(),
      dailyTokens: z.number().nullable(),
      dailyUsd: z.number().nullable(),
    }),
    sandbox: z.object({ available: z.boolean() }).passthrough(),
    unhandledRejections: z.number(),
  })
  .passthrough();

/** How much of the log the log view reads (its end). */
const logTailBytes = 256 * 1024;
const logLevels = ["trace", "debug", "info", "warn", "error", "fatal"] as const;
const pinoLevels: Record<number, (typeof logLevels)[number]> = {
  10: "trace",
  20: "debug",
  30: "info",
  40: "warn",
  50: "error",
  60: "fatal",
};

export function registerStatusPages(app: Hono<DashboardEnv>, services: DashboardServices): void {
  app.get("/", (c) => {
    const status = statusShape.parse(services.status());
    const database = services.app.database;
    const backups = services.app.paths.home;
    return page(
      c,
      { title: "Status", live: ["task-start", "task-end", "approval-request", "approval-resolved"] },
      html`<dl class="facts">
<dt>Daemon</dt><dd>pid ${status.pid}, version ${status.version}, up since ${formatTime(status.startedAt)}</dd>
<dt>Home</dt><dd><code>${status.home}</code></dd>
<dt>Database</dt><dd><code>${database.name}</code>, journal ${String(database.pragma("journal_mode", { simple: true }))}</dd>
<dt>Sandbox</dt><dd>${status.sandbox.available ? "available" : html`<strong>not available</strong>`} <code>${JSON.stringify(status.sandbox)}</code></dd>
<dt>Budget today</dt><dd>${status.budget.tokensToday} tokens${status.budget.dailyTokens ? ` of ${status.budget.dailyTokens}` : ""}, $${status.budget.costUsdToday.toFixed(4)}${status.budget.dailyUsd ? ` of $${status.budget.dailyUsd}` : ""}</dd>
<dt>Tasks</dt><dd>${Object.entries(status.tasks.counts)
        .map(([name, count]) => `${name} ${count}`)
        .join(" · ")}</dd>
<dt>Unhandled rejections</dt><dd>${status.unhandledRejections}</dd>
<dt>Backups folder</dt><dd><code>${backups}/backups</code></dd>
</dl>
<h2>Channels</h2>
${table(
  ["channel", "state", "detail"],
  status.channels.map(
    (channel) =>
      html`<tr><td>${channel.name}</td><td>${channel.state}</td><td><code>${JSON.stringify(channel)}</code></td></tr>`,
  ),
)}
<h2>Running</h2>
${table(
  ["task", "status", "input"],
  status.tasks.active.map(
    (task) =>
      html`<tr><td><a href="${path`/tasks/${task.id}`}">${task.id.slice(0, 8)}</a></td><td>${task.status}</td><td>${task.input}</td></tr>`,
  ),
)}
<h2>Pending approvals</h2>
<p>${status.pendingApprovals.length} waiting. <a href="/approvals">Answer them</a>.</p>`,
    );
  });

  app.get("/logs", (c) => {
    const level = z
      .enum(logLevels)
      .catch("info")
      .parse(c.req.query("level") ?? "info");
    const needle = (c.req.query("q") ?? "").slice(0, 200).toLowerCase();
    const minimum = logLevels.indexOf(level);
    const tail = readTail(services.logPath);
    const lines = (tail ?? [])
      .flatMap((line) => {
        const entry = parseLogLine(line);
        if (logLevels.indexOf(entry.level) < minimum) return [];
        if (needle && !line.toLowerCase().includes(needle)) return [];
        return [entry];
      })
      .slice(-500);
    return page(
      c,
      { title: "Logs" },
      html`<form method="get" action="/logs" class="filters">
<label>Level <select name="level">${logLevels.map(
        (name) => html`<option value="${name}"${name === level ? html` selected` : ""}>${name}</option>`,
      )}</select></label>
<label>Contains <input name="q" value="${needle}"></label>
<button type="submit">Filter</button></form>
<p><small>${tail === null ? `No log file at ${services.logPath} yet.` : `${services.logPath}; the last ${lines.length} matching lines.`}</small></p>
${table(
  ["time", "level", "message", "fields"],
  lines.map(
    (entry) =>
      html`<tr class="log-${entry.level}"><td>${entry.time}</td><td>${entry.level}</td><td>${entry.message}</td><td><code>${entry.fields}</code></td></tr>`,
  ),
)}`,
    );
  });
}

/** The end of the log file; null when the daemon has not written one yet. */
function readTail(file: string): string[] | null {
  if (!existsSync(file)) return null;
  const content = readFileSync(file);
  const text = content.subarray(Math.max(0, content.length - logTailBytes)).toString("utf8");
  const lines = text.split("\n").filter((line) => line.trim() !== "");
  // A cut at the start leaves a partial first line.
  return content.length > logTailBytes ? lines.slice(1) : lines;
}

/** A pino JSON line, or a plain line (start-up output) shown as it is. */
function parseLogLine(line: string): {
  time: string;
  level: (typeof logLevels)[number];
  message: string;
  fields: string;
} {
  try {
    const parsed = z
      .object({
        level: z.number(),
        time: z.union([z.number(), z.string()]).optional(),
        msg: z.string().optional(),
      })
      .passthrough()
      .parse(JSON.parse(line));
    const { level, time, msg, pid: _pid, hostname: _hostname, ...rest } = parsed;
    return {
      time: time === undefined ? "" : formatTime(new Date(time).toISOString()),
      level: pinoLevels[level] ?? "info",
      message: msg ?? "",
      fields: Object.keys(rest).length > 0 ? JSON.stringify(rest) : "",
    };
  } catch {
    return { time: "", level: "info", message: line, fields: "" };
  }
}

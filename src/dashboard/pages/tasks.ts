import type { Hono } from "hono";
import { z } from "zod";
import { TaskEvidenceStore } from "../../agent/evidence.js";
import { type LedgerStatus, ledgerStatuses } from "../../agent/ledger.js";
import { userHomeOf } from "../../sandbox/workspace.js";
import type { DashboardEnv } from "../guard.js";
import { type Html, html, path } from "../html.js";
import { type DashboardServices, dashboardChannel } from "../services.js";
import { taskDiff } from "../task-diff.js";
import { backTo, formatTime, noticeOf, page, postForm, table } from "./layout.js";

/** Long tool output is cut in the page (the full text stays in the transcript). */
const shownPartChars = 4000;

const part = z
  .object({
    type: z.string(),
    text: z.string().optional(),
    toolName: z.string().optional(),
    input: z.unknown().optional(),
    output: z.unknown().optional(),
  })
  .passthrough();

/** The work ledger: running, paused, finished; a task's transcript, outcome and evidence; stop, continue. */
export function registerTaskPages(app: Hono<DashboardEnv>, services: DashboardServices): void {
  const evidence = new TaskEvidenceStore(services.app.database, services.app.clock);

  app.get("/tasks", (c) => {
    const wanted = z.enum(ledgerStatuses).optional().catch(undefined).parse(c.req.query("status"));
    const statuses: LedgerStatus[] | undefined = wanted ? [wanted] : undefined;
    const tasks = services.ledger.list({ limit: 200, ...(statuses ? { statuses } : {}) });
    return page(
      c,
      { title: "Tasks", live: ["task-start", "task-end"], notice: noticeOf(c) },
      html`<p class="filters">${[undefined, ...ledgerStatuses].map(
        (status) =>
          html`<a href="${status ? path`/tasks?status=${status}` : "/tasks"}"${status === wanted ? html` aria-current="true"` : ""}>${status ?? "all"}</a> `,
      )}</p>
${table(
  ["task", "status", "channel", "person", "input", "updated", "why"],
  tasks.map(
    (task) => html`<tr class="task" data-task-id="${task.id}" data-status="${task.status}">
<td><a href="${path`/tasks/${task.id}`}">${task.id.slice(0, 8)}</a></td><td>${task.status}</td><td>${task.channel}</td>
<td>${task.userKey}</td><td>${task.input.slice(0, 200)}</td><td>${formatTime(task.updatedAt)}</td><td>${task.reason ?? ""}</td></tr>`,
  ),
)}`,
    );
  });

  app.get("/tasks/:id", async (c) => {
    const task = services.ledger.get(c.req.param("id"));
    if (!task) return c.text("no such task", 404);
    const messages = services.app.agent.transcriptStore
      .load(task.sessionId)
      .filter((stored) => stored.taskId === task.id);
    const proof = evidence.load(task.id);
    const diff = proof
      ? await taskDiff(proof, { userHome: userHomeOf(services.app.env), mercuryHome: services.app.home })
      : null;
    const latestPaused = services.ledger.latestPaused(task.userKey);
    const running = task.status === "running" || task.status === "queued";
    return page(
      c,
      {
        title: `Task ${task.id.slice(0, 8)}`,
        live: ["task-end", "tool-result", "approval-request", "approval-resolved"],
        notice: noticeOf(c),
      },
      html`<dl class="facts">
<dt>Status</dt><dd class="task-status">${task.status}${task.outcome && task.outcome !== task.status ? ` (${task.outcome})` : ""}</dd>
<dt>Asked</dt><dd>${task.input}</dd>
<dt>Why</dt><dd>${task.reason ?? "—"}</dd>
<dt>Folder</dt><dd><code>${task.cwd}</code></dd>
<dt>Started, updated</dt><dd>${formatTime(task.createdAt)}, ${formatTime(task.updatedAt)}; resumed ${task.resumes}×, continued ${task.continuations}×</dd>
<dt>Answer</dt><dd class="final-answer">${task.finalAnswer ?? "—"}</dd>
</dl>
${running ? postForm(c, path`/tasks/${task.id}/stop`, "Stop", {}, { className: "inline danger" }) : ""}
${task.status === "paused" && latestPaused?.id === task.id ? postForm(c, path`/tasks/${task.id}/continue`, "Continue") : ""}
<h2>Evidence</h2>
${
  proof
    ? html`<p>Files changed: ${proof.after?.files.length ? proof.after.files.map((file) => html`<code>${file}</code> `) : "none recorded"}</p>
${table(
  ["verification", "exit code"],
  proof.verifications.map(
    (run) =>
      html`<tr><td><code>${run.command}</code></td><td>${run.exitCode === null ? "killed" : run.exitCode}</td></tr>`,
  ),
)}${proof.verifyError ? html`<p>${proof.verifyError}</p>` : ""}
${
  diff?.ok
    ? html`<pre class="diff">${diff.text}</pre>${diff.cut ? html`<p>(the diff continues; see the files)</p>` : ""}`
    : html`<p><small>No diff: ${diff?.reason ?? "no evidence"}.</small></p>`
}`
    : html`<p>No changes recorded for this task.</p>`
}
<h2>Transcript</h2>
<ol class="transcript">${messages.map(
        (stored) =>
          html`<li class="message role-${stored.message.role}"><strong>${stored.message.role}</strong>${renderContent(stored.message.content)}</li>`,
      )}</ol>`,
    );
  });

  app.post("/tasks/:id/stop", async (c) => {
    const task = services.ledger.get(c.req.param("id"));
    if (!task) return backTo(c, "/tasks", "no such task");
    const stopped = await services.gateway.stop(task.userKey);
    return backTo(c, path`/tasks/${task.id}`, stopped ? "Stopped." : "It was not running.");
  });

  app.post("/tasks/:id/continue", async (c) => {
    const task = services.ledger.get(c.req.param("id"));
    if (!task) return backTo(c, "/tasks", "no such task");
    if (services.ledger.latestPaused(task.userKey)?.id !== task.id)
      return backTo(c, path`/tasks/${task.id}`, "Only the latest paused task can be continued.");
    try {
      await services.gateway.submit({ userKey: task.userKey, channel: dashboardChannel, text: "continue" });
    } catch (error) {
      return backTo(c, path`/tasks/${task.id}`, error instanceof Error ? error.message : String(error));
    }
    return backTo(c, path`/tasks/${task.id}`, "Continuing.");
  });
}

function renderContent(content: unknown): Html {
  if (typeof content === "string") return html`<pre>${cut(content)}</pre>`;
  const parts = z.array(part).safeParse(content);
  if (!parts.success) return html`<pre>${cut(JSON.stringify(content))}</pre>`;
  return html`${parts.data.map((item) => {
    if (item.type === "text" || item.type === "reasoning")
      return html`<pre class="${item.type}">${cut(item.text ?? "")}</pre>`;
    if (item.type === "tool-call")
      return html`<div class="tool-call">→ <code>${item.toolName ?? "?"}</code> <pre>${cut(JSON.stringify(item.input ?? null, null, 1))}</pre></div>`;
    if (item.type === "tool-result")
      return html`<div class="tool-result">← <code>${item.toolName ?? "?"}</code> <pre>${cut(toolOutputText(item.output))}</pre></div>`;
    return html`<pre>${cut(JSON.stringify(item))}</pre>`;
  })}`;
}

function cut(text: string): string {
  return text.length > shownPartChars
    ? `${text.slice(0, shownPartChars)}… (${text.length} characters)`
    : text;
}

/** A tool result as the model saw it: its text when it is text, else the JSON. */
function toolOutputText(output: unknown): string {
  const text = z.object({ type: z.literal("text"), value: z.string() }).safeParse(output);
  if (text.success) return text.data.value;
  const json = z.object({ type: z.literal("json"), value: z.unknown() }).safeParse(output);
  return JSON.stringify(json.success ? json.data.value : (output ?? null), null, 1);
}

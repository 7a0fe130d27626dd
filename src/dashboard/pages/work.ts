import type { Hono } from "hono";
import { JobStore } from "../../scheduler/jobs.js";
import type { DashboardEnv } from "../guard.js";
import { html, path } from "../html.js";
import type { DashboardServices } from "../services.js";
import { backTo, formatTime, noticeOf, page, postForm, table } from "./layout.js";

/** Schedules (pause/resume, history), sub-agents, skills (drafts to review) and MCP servers. */
export function registerWorkPages(app: Hono<DashboardEnv>, services: DashboardServices): void {
  const jobs = new JobStore(services.app.database, services.app.clock);
  const { skills, mcp, subagents } = services.app;

  app.get("/work", async (c) => {
    const scheduled = jobs.list();
    const drafts = (await skills.load()).drafts.list("pending");
    const servers = mcp ? (await mcp.load()).status() : [];
    const agents = subagents.list();
    return page(
      c,
      { title: "Schedules · Skills · MCP", notice: noticeOf(c), live: ["task-end"] },
      html`<h2>Schedules</h2>
${table(
  ["job", "when", "task", "status", "next", "recent runs", ""],
  scheduled.map((job) => {
    const runs = jobs.runs(job.id, 5);
    return html`<tr><td>${job.name} <small>${job.id}</small></td><td><code>${JSON.stringify(job.spec)}</code></td>
<td>${job.task}</td><td>${job.status}${job.statusReason ? html`<br><small>${job.statusReason}</small>` : ""}</td>
<td>${job.nextDueMs === null ? "—" : formatTime(new Date(job.nextDueMs).toISOString())}</td>
<td>${runs.map((run) => html`<div>${formatTime(new Date(run.dueMs).toISOString())} ${run.timing} ${run.outcome ?? run.status}${run.reason ? `: ${run.reason}` : ""}</div>`)}</td>
<td>${
      job.status === "active"
        ? postForm(c, path`/schedules/${job.id}/pause`, "Pause")
        : job.status === "paused"
          ? postForm(c, path`/schedules/${job.id}/resume`, "Resume")
          : ""
    }</td></tr>`;
  }),
)}
<h2>Sub-agents</h2>
${table(
  ["agent", "parent task", "task", "status", "started"],
  agents.map(
    (agent) =>
      html`<tr><td>${agent.id}</td><td><a href="${path`/tasks/${agent.parentTaskId}`}">${agent.parentTaskId.slice(0, 8)}</a></td><td>${agent.task}</td><td>${agent.status}</td><td>${formatTime(agent.startedAt)}</td></tr>`,
  ),
)}
<h2>Skill drafts to review</h2>
${table(
  ["draft", "skill", "kind", "change", ""],
  drafts.map(
    (
      draft,
    ) => html`<tr><td>${draft.id}</td><td>${draft.name}</td><td>${draft.kind}</td><td><pre>${draft.diff.slice(0, 4000)}</pre></td>
<td>${postForm(c, path`/skills/drafts/${draft.id}/approve`, "Approve", {}, { confirm: "Install this skill?" })}
${postForm(c, path`/skills/drafts/${draft.id}/reject`, "Reject")}</td></tr>`,
  ),
)}
<h2>MCP servers</h2>
${table(
  ["server", "transport", "state", "tools", "restarts", "error"],
  servers.map(
    (server) =>
      html`<tr><td>${server.name}</td><td>${server.transport}</td><td>${server.state}</td><td>${server.tools}</td><td>${server.restarts}</td><td>${server.error ?? ""}</td></tr>`,
  ),
)}`,
    );
  });

  for (const action of ["pause", "resume"] as const) {
    app.post(`/schedules/:id/${action}`, (c) => {
      const id = c.req.param("id");
      try {
        const job = jobs.require(id);
        if (action === "resume" && job.status !== "paused")
          return backTo(c, "/work", `job ${id} is ${job.status}, not paused; nothing to resume`);
        jobs.setStatus(
          id,
          action === "pause" ? "paused" : "active",
          action === "pause" ? "paused by the owner (dashboard)" : null,
        );
      } catch (error) {
        return backTo(c, "/work", error instanceof Error ? error.message : String(error));
      }
      return backTo(c, "/work", `${id} ${action === "pause" ? "paused" : "resumed"}.`);
    });
  }

  for (const action of ["approve", "reject"] as const) {
    app.post(`/skills/drafts/:id/${action}`, async (c) => {
      const id = Number(c.req.param("id"));
      const service = await skills.load();
      try {
        const draft =
          action === "approve"
            ? service.approve(id, services.ownerKey)
            : service.reject(id, services.ownerKey);
        return backTo(c, "/work", `Skill draft ${draft.id} (${draft.name}) ${draft.status}.`);
      } catch (error) {
        return backTo(c, "/work", error instanceof Error ? error.message : String(error));
      }
    });
  }
}

import type { Hono } from "hono";
import { z } from "zod";
import type { DashboardEnv } from "../guard.js";
import { html, path } from "../html.js";
import type { DashboardServices } from "../services.js";
import { backTo, formatTime, noticeOf, page, postForm, table } from "./layout.js";

const decisionForm = z.object({ decision: z.enum(["once", "session", "always", "deny"]) });

/**
 * Pending approvals, answered through the gateway the terminal and Telegram use: the broker
 * records the answer once and announces `approval-resolved`, so every channel clears it.
 */
export function registerApprovalPages(app: Hono<DashboardEnv>, services: DashboardServices): void {
  const { approvals } = services.app;
  app.get("/approvals", (c) => {
    const pending = approvals.pendingFor(services.ownerKey);
    const grants = approvals.grants.list();
    // Which sessions hold a window; whether it is active and until when is the store's answer.
    const sessions = z
      .array(z.object({ sessionId: z.string() }))
      .parse(
        services.app.database
          .prepare(
            "SELECT DISTINCT session_id AS sessionId FROM allow_all WHERE revoked_at IS NULL AND until > ?",
          )
          .all(services.app.clock.now().toISOString()),
      )
      .map((row) => row.sessionId);
    const windows = sessions.flatMap((sessionId) => {
      const status = approvals.allowAllStatus(sessionId);
      return status.active ? [{ sessionId, until: status.until?.toISOString() ?? null }] : [];
    });
    return page(
      c,
      { title: "Approvals", live: ["approval-request", "approval-resolved"], notice: noticeOf(c) },
      html`<h2>Waiting for you</h2>
${table(
  ["asked", "what", "rule", "task", "expires", "answer"],
  pending.map(
    (record) => html`<tr class="approval" data-approval-id="${record.id}">
<td>${formatTime(record.created_at)}</td>
<td><code>${record.summary}</code><br><small>${record.reason}</small></td>
<td>${record.rule}</td>
<td><a href="${path`/tasks/${record.task_id}`}">${record.task_id.slice(0, 8)}</a></td>
<td>${formatTime(record.expires_at)}</td>
<td>${(["once", "session", "always", "deny"] as const).map((decision) =>
      postForm(
        c,
        path`/approvals/${record.id}`,
        decision === "deny"
          ? "Deny"
          : `Approve ${decision === "once" ? "once" : decision === "session" ? "for this session" : "always"}`,
        { decision },
        decision === "always" ? { confirm: "Allow this for good (until you revoke it)?" } : {},
      ),
    )}</td></tr>`,
  ),
)}
<h2>Standing grants</h2>
${table(
  ["id", "kind", "subject", "scope", "granted", "revoke"],
  grants.map(
    (grant) => html`<tr><td>${grant.id}</td><td>${grant.kind}</td><td><code>${grant.subject}</code></td>
<td>${grant.scope}${grant.session_id ? ` (${grant.session_id.slice(0, 8)})` : ""}</td><td>${formatTime(grant.created_at)}</td>
<td>${postForm(c, path`/grants/${grant.id}/revoke`, "Revoke")}</td></tr>`,
  ),
)}
<h2>Allow-all windows</h2>
${table(
  ["session", "until", "revoke"],
  windows.map(
    (window) => html`<tr><td>${window.sessionId}</td><td>${formatTime(window.until)}</td>
<td>${postForm(c, path`/allow-all/${window.sessionId}/revoke`, "Revoke")}</td></tr>`,
  ),
)}`,
    );
  });

  app.post("/approvals/:id", async (c) => {
    const parsed = decisionForm.safeParse(await c.req.parseBody());
    if (!parsed.success) return backTo(c, "/approvals", "choose once, session, always or deny");
    try {
      await services.gateway.answerApproval(c.req.param("id"), parsed.data.decision, services.ownerKey);
    } catch (error) {
      return backTo(c, "/approvals", error instanceof Error ? error.message : String(error));
    }
    return backTo(c, "/approvals", `Answered: ${parsed.data.decision}.`);
  });

  app.post("/grants/:id/revoke", (c) => {
    const id = Number(c.req.param("id"));
    const revoked = Number.isInteger(id) && approvals.grants.revoke(id);
    return backTo(c, "/approvals", revoked ? `Revoked grant ${id}.` : `No grant ${c.req.param("id")}.`);
  });

  app.post("/allow-all/:session/revoke", (c) => {
    const revoked = approvals.revokeAllowAll(c.req.param("session"), services.ownerKey);
    return backTo(c, "/approvals", revoked ? "Allow-all revoked." : "That allow-all window was not active.");
  });
}

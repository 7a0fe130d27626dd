import type { Context, Hono } from "hono";
import { z } from "zod";
import { exportJsonl, exportMarkdown } from "../../memory/export-import.js";
import { forgetLeftovers } from "../../memory/forget-notice.js";
import type { MemoryService, MemoryView } from "../../memory/service.js";
import { believedAt, parseAsOf } from "../../memory/store/provenance.js";
import { TIERS } from "../../memory/store/types.js";
import type { DashboardEnv } from "../guard.js";
import { type Html, html, path } from "../html.js";
import type { DashboardServices } from "../services.js";
import { backTo, formatTime, noticeOf, page, postForm, table } from "./layout.js";

const listQuery = z.object({
  q: z.string().max(500).optional(),
  user: z.string().max(200).optional(),
  tier: z.enum(TIERS).optional().catch(undefined),
  asOf: z.string().max(40).optional(),
  all: z.literal("1").optional().catch(undefined),
});

/**
 * Memory: search, list by person and tier, "as of", a memory's evidence and history, edit, forget
 * (MemoryService.forget: the same erase as `mercury memory forget`), conflicts, export.
 */
export function registerMemoryPages(app: Hono<DashboardEnv>, services: DashboardServices): void {
  const memoryOrDisabled = (c: Context<DashboardEnv>): MemoryService | Response => {
    const memory = services.app.memory;
    if (memory) return memory;
    return page(
      c,
      { title: "Memory" },
      html`<p>Memory is turned off (<code>memory.enabled: false</code>).</p>`,
    );
  };

  app.get("/memory", async (c) => {
    const memory = memoryOrDisabled(c);
    if (memory instanceof Response) return memory;
    const query = listQuery.parse(c.req.query());
    const user = query.user?.trim() || services.ownerKey;
    let asOf: string | undefined;
    let problem: string | null = null;
    try {
      asOf = query.asOf?.trim() ? parseAsOf(query.asOf) : undefined;
    } catch (error) {
      problem = error instanceof Error ? error.message.replace("--as-of", "as of") : String(error);
    }
    const includeSuperseded = query.all !== undefined || asOf !== undefined;
    const text = query.q?.trim() ?? "";
    const found: MemoryView[] = text
      ? (await memory.search({ userKey: user, query: text, limit: asOf ? 100 : 50, includeSuperseded })).map(
          (result) => result.memory,
        )
      : memory.list({ userKey: user, includeSuperseded, ...(query.tier ? { tier: query.tier } : {}) });
    const shown = (asOf ? found.filter((item) => believedAt(item, asOf)) : found)
      .filter((item) => !query.tier || item.tier === query.tier)
      .slice(0, 200);
    const people = personKeys(services);
    const conflicts = memory.conflicts(user).length;
    return page(
      c,
      { title: "Memory", live: ["memory-receipt"], notice: problem ?? noticeOf(c) },
      html`<form method="get" action="/memory" class="filters" role="search">
<label>Search <input type="search" name="q" value="${text}"></label>
<label>Person <select name="user">${[...new Set([services.ownerKey, ...people])].map(
        (key) => html`<option value="${key}"${key === user ? html` selected` : ""}>${key}</option>`,
      )}</select></label>
<label>Tier <select name="tier"><option value="">any</option>${TIERS.map(
        (tier) => html`<option value="${tier}"${tier === query.tier ? html` selected` : ""}>${tier}</option>`,
      )}</select></label>
<label>As of <input name="asOf" placeholder="2026-03-01" value="${query.asOf ?? ""}"></label>
<label><input type="checkbox" name="all" value="1"${query.all ? html` checked` : ""}> include superseded</label>
<button type="submit">Show</button>
</form>
<p>${shown.length} shown. ${conflicts > 0 ? html`<a href="${path`/memory-conflicts?user=${user}`}">${conflicts} open conflicts</a>. ` : ""}
Export: <a href="${path`/memory-export?user=${user}&format=jsonl`}">JSONL</a> · <a href="${path`/memory-export?user=${user}&format=md`}">Markdown</a></p>
${memoryTable(c, shown, user)}`,
    );
  });

  app.get("/memory/:id", (c) => {
    const memory = memoryOrDisabled(c);
    if (memory instanceof Response) return memory;
    const id = Number(c.req.param("id"));
    const user = c.req.query("user") || services.ownerKey;
    if (!Number.isInteger(id)) return c.text("not a memory id", 404);
    let why: ReturnType<MemoryService["why"]>;
    try {
      why = memory.why(id, user);
    } catch (error) {
      return page(
        c,
        { title: `Memory #${id}` },
        html`<p>${error instanceof Error ? error.message : String(error)}</p>`,
      );
    }
    const item = why.memory;
    return page(
      c,
      { title: `Memory #${id}`, notice: noticeOf(c) },
      html`<blockquote class="memory-text">${item.text}</blockquote>
<dl class="facts">
<dt>Person</dt><dd>${item.userKey}</dd>
<dt>Kind, tier</dt><dd>${item.kind}, ${item.tier}</dd>
<dt>Confidence</dt><dd>${item.confidence.toFixed(2)} (from evidence: ${item.evidence}, ${item.confirmations} confirmations, ${item.contradictions} contradictions)</dd>
<dt>Valid</dt><dd>${formatTime(item.validFrom)} → ${item.validTo ? formatTime(item.validTo) : "now"}; recorded ${formatTime(item.recordedAt)}${item.supersededAt ? `; superseded ${formatTime(item.supersededAt)} by #${item.supersededBy ?? "?"}` : ""}</dd>
<dt>Quote</dt><dd>${item.sourceQuote ?? "—"}</dd>
</dl>
<h2>Evidence (source turns)</h2>
${table(
  ["when", "speaker", "said"],
  why.sources.map(
    (turn) =>
      html`<tr><td>${formatTime(turn.at)}</td><td>${turn.speaker ?? turn.role}</td><td>${turn.text}</td></tr>`,
  ),
)}
<h2>History</h2>
${table(
  ["when", "why", "evidence", "text"],
  why.versions.map(
    (version) =>
      html`<tr><td>${formatTime(version.createdAt)}</td><td>${version.reason}</td><td>${version.evidence}</td><td>${version.text}</td></tr>`,
  ),
)}
<h2>Change</h2>
<form method="post" action="${path`/memory/${id}/edit?user=${user}`}" class="stacked">
<input type="hidden" name="csrf" value="${c.get("session").csrf}">
<label for="memory-edit">New wording</label>
<textarea id="memory-edit" name="text" rows="2" required>${item.text}</textarea>
<button type="submit">Save edit</button></form>
${postForm(
  c,
  path`/memory/${id}/forget?user=${user}`,
  "Forget for good",
  {},
  {
    confirm:
      "Erase this memory, its history and the words in the conversations it came from? This cannot be undone.",
    className: "inline danger",
  },
)}`,
    );
  });

  app.post("/memory/:id/edit", async (c) => {
    const memory = services.app.memory;
    const id = Number(c.req.param("id"));
    const user = c.req.query("user") || services.ownerKey;
    const body = z.object({ text: z.string() }).safeParse(await c.req.parseBody());
    if (!memory || !body.success) return backTo(c, path`/memory/${id}`, "send the new wording");
    try {
      const updated = memory.edit(id, user, body.data.text);
      return backTo(c, path`/memory/${id}?user=${user}`, `Updated: ${updated.text}`);
    } catch (error) {
      return backTo(
        c,
        path`/memory/${id}?user=${user}`,
        error instanceof Error ? error.message : String(error),
      );
    }
  });

  app.post("/memory/:id/forget", (c) => {
    const memory = services.app.memory;
    const id = Number(c.req.param("id"));
    const user = c.req.query("user") || services.ownerKey;
    if (!memory) return backTo(c, "/memory", "memory is turned off");
    try {
      const result = memory.forget(id, user);
      return backTo(
        c,
        path`/memory?user=${user}`,
        fitNotice(
          `Forgotten: memory #${id} (${result.messagesRedacted} conversation turns and ${result.episodesRedacted} archived turns redacted).`,
          forgetLeftovers(result),
        ),
      );
    } catch (error) {
      return backTo(c, path`/memory?user=${user}`, error instanceof Error ? error.message : String(error));
    }
  });

  app.get("/memory-conflicts", (c) => {
    const memory = memoryOrDisabled(c);
    if (memory instanceof Response) return memory;
    const user = c.req.query("user") || services.ownerKey;
    const conflicts = memory.conflicts(user);
    return page(
      c,
      { title: "Memory conflicts", notice: noticeOf(c), live: ["memory-receipt"] },
      table(
        ["detected", "one", "other", "why", "resolve"],
        conflicts.map(
          (conflict) => html`<tr><td>${formatTime(conflict.detectedAt)}</td>
<td><a href="${path`/memory/${conflict.a.id}?user=${user}`}">#${conflict.a.id}</a> ${conflict.a.text}</td>
<td><a href="${path`/memory/${conflict.b.id}?user=${user}`}">#${conflict.b.id}</a> ${conflict.b.text}</td>
<td>${conflict.reason}</td>
<td>${postForm(c, path`/memory/${conflict.a.id}/resolve?user=${user}`, `Keep #${conflict.a.id}`, { keep: String(conflict.a.id) })}
${postForm(c, path`/memory/${conflict.a.id}/resolve?user=${user}`, `Keep #${conflict.b.id}`, { keep: String(conflict.b.id) })}
${postForm(c, path`/memory/${conflict.a.id}/resolve?user=${user}`, "Keep both", { keep: "both" })}</td></tr>`,
        ),
      ),
    );
  });

  app.post("/memory/:id/resolve", async (c) => {
    const memory = services.app.memory;
    const id = Number(c.req.param("id"));
    const user = c.req.query("user") || services.ownerKey;
    const body = z
      .object({ keep: z.union([z.literal("both"), z.coerce.number().int()]) })
      .safeParse(await c.req.parseBody());
    if (!memory || !body.success)
      return backTo(c, path`/memory-conflicts?user=${user}`, "choose which to keep");
    try {
      const result = memory.resolveConflict(id, user, body.data.keep);
      return backTo(
        c,
        path`/memory-conflicts?user=${user}`,
        `Kept ${result.kept.map((n) => `#${n}`).join(", ")}; superseded ${result.superseded.map((n) => `#${n}`).join(", ") || "none"}.`,
      );
    } catch (error) {
      return backTo(
        c,
        path`/memory-conflicts?user=${user}`,
        error instanceof Error ? error.message : String(error),
      );
    }
  });

  app.get("/memory-export", (c) => {
    const memory = memoryOrDisabled(c);
    if (memory instanceof Response) return memory;
    const user = c.req.query("user") || services.ownerKey;
    const markdown = c.req.query("format") === "md";
    const exported = (markdown ? exportMarkdown : exportJsonl)(memory, [user], services.app.clock.now());
    const name = `mercury-memories.${markdown ? "md" : "jsonl"}`;
    return c.body(exported.content, 200, {
      "Content-Type": markdown ? "text/markdown; charset=utf-8" : "application/x-ndjson; charset=utf-8",
      "Content-Disposition": `attachment; filename="${name}"`,
    });
  });
}

function memoryTable(c: Context<DashboardEnv>, memories: MemoryView[], user: string): Html {
  return table(
    ["#", "memory", "kind", "tier", "confidence", "updated", ""],
    memories.map(
      (item) => html`<tr class="memory" data-memory-id="${item.id}">
<td><a href="${path`/memory/${item.id}?user=${user}`}">${item.id}</a></td>
<td class="memory-text">${item.text}${item.supersededAt ? html` <small>(superseded)</small>` : ""}</td>
<td>${item.kind}</td><td>${item.tier}</td><td>${item.confidence.toFixed(2)}</td><td>${formatTime(item.updatedAt)}</td>
<td>${postForm(
        c,
        path`/memory/${item.id}/forget?user=${user}`,
        "Forget",
        {},
        {
          confirm: "Erase this memory for good? This cannot be undone.",
          className: "inline danger",
        },
      )}</td></tr>`,
    ),
  );
}

/** The people who have memories (owner, Telegram members). */
function personKeys(services: DashboardServices): string[] {
  const rows = services.app.database
    .prepare("SELECT DISTINCT user_key AS userKey FROM memories ORDER BY user_key")
    .all();
  return z
    .array(z.object({ userKey: z.string() }))
    .parse(rows)
    .map((row) => row.userKey);
}

/**
 * The notice shows at most 500 characters (layout.ts): the leftovers of a forget are cut at a whole
 * line and the count of the lines left out is said, never dropped without a word.
 */
function fitNotice(head: string, lines: readonly string[], limit = 500): string {
  let text = head;
  for (const [index, line] of lines.entries()) {
    const more = ` … and ${lines.length - index} more line(s) of files that still hold it, not shown here.`;
    if (text.length + 1 + line.length + more.length > limit && index < lines.length - 1)
      return `${text}${more}`;
    text = `${text} ${line.trim()}`;
  }
  return text;
}

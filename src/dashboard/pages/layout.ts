import type { Context } from "hono";
import type { DashboardEnv } from "../guard.js";
import { Html, html } from "../html.js";

const sections: [string, string][] = [
  ["/", "Status"],
  ["/chat", "Chat"],
  ["/memory", "Memory"],
  ["/tasks", "Tasks"],
  ["/approvals", "Approvals"],
  ["/usage", "Usage"],
  ["/work", "Schedules · Skills · MCP"],
  ["/logs", "Logs"],
];

export interface PageOptions {
  title: string;
  /** Event types (agent events) after which app.js reloads this page: live updates, not polling. */
  live?: string[];
  /** A message shown above the page (from a redirect after a form). */
  notice?: string | null;
}

export function page(c: Context<DashboardEnv>, options: PageOptions, body: Html): Response {
  const current = new URL(c.req.url).pathname;
  const document = html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="csrf-token" content="${c.get("session").csrf}">
<title>Mercury · ${options.title}</title>
<link rel="stylesheet" href="/static/app.css">
<script src="/static/app.js" defer></script>
</head>
<body data-live="${(options.live ?? []).join(" ")}">
<nav>${sections.map(
    ([href, label]) =>
      html`<a href="${href}"${current === href || (href !== "/" && current.startsWith(`${href}/`)) ? new Html(' aria-current="page"') : ""}>${label}</a>`,
  )}<form method="post" action="/logout" class="inline logout"><input type="hidden" name="csrf" value="${c.get("session").csrf}"><button type="submit">Log out</button></form></nav>
<main>
<h1>${options.title}</h1>
${options.notice ? html`<p class="notice" role="status">${options.notice}</p>` : ""}
${body}
</main>
</body>
</html>`;
  return c.html(document.value);
}

/** A POST form with the session's anti-CSRF token; `confirm` asks before sending (app.js). */
export function postForm(
  c: Context<DashboardEnv>,
  action: string,
  label: string,
  fields: Record<string, string> = {},
  options: { confirm?: string; className?: string } = {},
): Html {
  return html`<form method="post" action="${action}" class="${options.className ?? "inline"}"${
    options.confirm ? html` data-confirm="${options.confirm}"` : ""
  }><input type="hidden" name="csrf" value="${c.get("session").csrf}">${Object.entries(fields).map(
    ([name, value]) => html`<input type="hidden" name="${name}" value="${value}">`,
  )}<button type="submit">${label}</button></form>`;
}

/** Where a form goes back to, with a message: a fixed path of ours plus an escaped query. */
export function backTo(c: Context, path: string, notice: string): Response {
  return c.redirect(`${path}${path.includes("?") ? "&" : "?"}notice=${encodeURIComponent(notice)}`, 303);
}

export function noticeOf(c: Context): string | null {
  const notice = c.req.query("notice");
  return notice ? notice.slice(0, 500) : null;
}

export function table(headers: string[], rows: Html[]): Html {
  return html`<table><thead><tr>${headers.map((header) => html`<th>${header}</th>`)}</tr></thead><tbody>${
    rows.length > 0 ? rows : html`<tr><td colspan="${headers.length}">Nothing here.</td></tr>`
  }</tbody></table>`;
}

export function formatTime(iso: string | null | undefined): string {
  if (!iso) return "—";
  return iso.replace("T", " ").replace(/\.\d+Z$/, "Z");
}

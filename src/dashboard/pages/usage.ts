import type { Hono } from "hono";
import type { DashboardEnv } from "../guard.js";
import { type Html, html } from "../html.js";
import type { DashboardServices } from "../services.js";
import { page, table } from "./layout.js";

const shownDays = 30;

/** Tokens and cost per day, provider and session, against the daily budget: SVG drawn on the server. */
export function registerUsagePages(app: Hono<DashboardEnv>, services: DashboardServices): void {
  app.get("/usage", (c) => {
    const rows = services.app.agent.usage.summary(shownDays);
    const budget = services.app.config.budget;
    const byDay = new Map<string, { tokens: number; cost: number }>();
    const byProvider = new Map<string, { tokens: number; cost: number; failed: number }>();
    const bySession = new Map<string, { tokens: number; cost: number }>();
    for (const row of rows) {
      const tokens = row.inputTokens + row.outputTokens;
      add(byDay, row.day, tokens, row.costUsd);
      const provider = byProvider.get(row.provider) ?? { tokens: 0, cost: 0, failed: 0 };
      byProvider.set(row.provider, {
        tokens: provider.tokens + tokens,
        cost: provider.cost + row.costUsd,
        failed: provider.failed + row.failedAttempts,
      });
      add(bySession, row.sessionId ?? "(no session)", tokens, row.costUsd);
    }
    const days = [...byDay.entries()];
    return page(
      c,
      { title: "Usage", live: ["task-end"] },
      html`<p>Daily budget: ${budget.dailyTokens === null ? "no token cap" : `${budget.dailyTokens} tokens`}, ${
        budget.dailyUsd === null ? "no cost cap" : `$${budget.dailyUsd}`
      }.</p>
<h2>Tokens per day</h2>
${barChart(
  days.map(([day, value]) => ({ label: day.slice(5), value: value.tokens })),
  budget.dailyTokens,
  "tokens",
)}
<h2>Cost per day (USD)</h2>
${barChart(
  days.map(([day, value]) => ({ label: day.slice(5), value: value.cost })),
  budget.dailyUsd,
  "USD",
)}
<h2>By provider</h2>
${table(
  ["provider", "tokens", "cost", "failed attempts"],
  [...byProvider.entries()].map(
    ([name, value]) =>
      html`<tr><td>${name}</td><td>${value.tokens}</td><td>$${value.cost.toFixed(4)}</td><td>${value.failed}</td></tr>`,
  ),
)}
<h2>By session</h2>
${table(
  ["session", "tokens", "cost"],
  [...bySession.entries()]
    .sort((a, b) => b[1].tokens - a[1].tokens)
    .slice(0, 30)
    .map(
      ([name, value]) =>
        html`<tr><td>${name}</td><td>${value.tokens}</td><td>$${value.cost.toFixed(4)}</td></tr>`,
    ),
)}`,
    );
  });
}

function add(map: Map<string, { tokens: number; cost: number }>, key: string, tokens: number, cost: number) {
  const current = map.get(key) ?? { tokens: 0, cost: 0 };
  map.set(key, { tokens: current.tokens + tokens, cost: current.cost + cost });
}

/** A bar per day; the cap, when there is one, is a line across. Text only through escaped labels. */
function barChart(bars: { label: string; value: number }[], cap: number | null, unit: string): Html {
  if (bars.length === 0) return html`<p>No usage recorded in the last ${shownDays} days.</p>`;
  const width = 640;
  const height = 180;
  const top = Math.max(cap ?? 0, ...bars.map((bar) => bar.value), 1);
  const step = width / bars.length;
  const y = (value: number) => height - (value / top) * (height - 20);
  return html`<svg class="chart" viewBox="0 0 ${width} ${height + 20}" role="img" aria-label="${unit} per day">
${bars.map(
  (
    bar,
    index,
  ) => html`<rect x="${(index * step + 2).toFixed(1)}" y="${y(bar.value).toFixed(1)}" width="${Math.max(step - 4, 1).toFixed(1)}" height="${(height - y(bar.value)).toFixed(1)}"><title>${bar.label}: ${bar.value.toFixed(unit === "USD" ? 4 : 0)} ${unit}</title></rect>
<text x="${(index * step + step / 2).toFixed(1)}" y="${height + 14}" text-anchor="middle">${bar.label}</text>`,
)}
${cap === null ? "" : html`<line class="cap" x1="0" x2="${width}" y1="${y(cap).toFixed(1)}" y2="${y(cap).toFixed(1)}"><title>cap ${cap} ${unit}</title></line>`}
</svg>`;
}

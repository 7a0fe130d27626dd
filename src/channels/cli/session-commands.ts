import type { MercuryApp } from "../../app/container.js";
import { buildProviders, defaultModelFactory } from "../../model/providers.js";
import { relativeTime } from "./relative-time.js";

/**
 * The in-process chat's commands about the session and its settings: /status, /budget,
 * /permissions, /model, /resume, /memory. Each takes what it needs and prints through `info`.
 */
export interface SessionCommandContext {
  app: MercuryApp;
  info(line: string): void;
  sessionId: string | null;
  running: boolean;
}

export function budgetLine(app: MercuryApp): string {
  const today = app.agent.usage.today();
  const { dailyTokens, dailyUsd } = app.config.budget;
  return `budget today: ${today.tokens} tokens${dailyTokens !== null ? ` of ${dailyTokens}` : ""}, $${today.costUsd.toFixed(4)}${dailyUsd !== null ? ` of $${dailyUsd}` : ""}`;
}

export function allowAllLine(app: MercuryApp, sessionId: string | null): string {
  if (!sessionId) return "permissions: ask (allow-all off)";
  const status = app.approvals.allowAllStatus(sessionId);
  return status.active && status.until
    ? `permissions: ALLOW-ALL until ${status.until.toISOString()} (${relativeTime(status.until)}; hardline and secret paths still refused; /permissions ask to revoke)`
    : "permissions: ask (allow-all off)";
}

export function statusLines(context: SessionCommandContext): string {
  const described = context.app.chain.describe();
  const primary = described[0];
  const fallbacks =
    described
      .slice(1)
      .map((entry) => entry.provider)
      .join(", ") || "none";
  return [
    `provider: ${primary?.provider} (${primary?.model}); fallbacks: ${fallbacks}`,
    `session: ${context.sessionId ?? "(new on first message)"}`,
    `task: ${context.running ? "running" : "idle"}`,
    allowAllLine(context.app, context.sessionId),
    budgetLine(context.app),
  ].join("\n");
}

/**
 * `/permissions`, `/permissions allow-all [minutes]`, `/permissions ask` (revoke). Returns the
 * session id, created when allow-all needs a session to belong to.
 */
export function permissionsCommand(context: SessionCommandContext, argument: string): string | null {
  const { app, info } = context;
  const [action = "", minutesText] = argument.split(/\s+/);
  if (action === "") {
    info(allowAllLine(app, context.sessionId));
    return context.sessionId;
  }
  if (action !== "allow-all" && action !== "ask") {
    info("usage: /permissions [allow-all [minutes] | ask]");
    return context.sessionId;
  }
  const sessionId = context.sessionId ?? app.agent.transcriptStore.createSession("owner", "cli");
  if (action === "allow-all") {
    const minutes = minutesText ? Number(minutesText) : app.config.permissions.allowAllMinutes;
    const { until } = app.approvals.setAllowAll(sessionId, minutes, "owner");
    info(
      `allow-all for this session until ${until.toISOString()} (${relativeTime(until)}); hardline commands and secret paths are still refused`,
    );
  } else {
    info(
      app.approvals.revokeAllowAll(sessionId, "owner")
        ? "allow-all revoked: actions ask again"
        : "allow-all was not on",
    );
  }
  return sessionId;
}

/** `/model` shows the primary model; `/model <id>` switches it for this chat (not saved). */
export function modelCommand(context: SessionCommandContext, model: string): void {
  const { app, info } = context;
  const primary = app.config.chain[0];
  const current = app.chain.describe()[0];
  if (model === "") {
    info(`model: ${current?.provider}/${current?.model}; /model <id> switches (for this chat only)`);
    return;
  }
  if (!primary) return;
  if (context.running) {
    info("a task is running; /stop it (or wait) before switching the model");
    return;
  }
  const [handle] = buildProviders([{ ...primary, model }], app.env, defaultModelFactory);
  if (!handle) return;
  if (handle.problem) {
    info(`cannot use ${model}: ${handle.problem}`);
    return;
  }
  app.chain.replacePrimary(handle);
  info(`model: ${handle.label}/${model} for this chat (to keep it: mercury config set model ${model})`);
}

/**
 * `/resume` lists the recent terminal sessions; `/resume <n>` (or an id prefix) continues one.
 * Returns the session to continue with (unchanged when nothing was picked).
 */
export function resumeCommand(context: SessionCommandContext, choice: string): string | null {
  const { app, info } = context;
  const sessions = app.agent.transcriptStore.recentSessions("owner", "cli", 10);
  if (choice === "") {
    if (sessions.length === 0) {
      info("no earlier sessions");
      return context.sessionId;
    }
    sessions.forEach((session, index) => {
      const first = (session.firstMessage ?? "(no message)").replace(/\s+/g, " ");
      const current = session.id === context.sessionId ? " (current)" : "";
      info(
        `${String(index + 1).padStart(2)}. ${relativeTime(session.updatedAt)}${current} — ${first.length > 60 ? `${first.slice(0, 59)}…` : first}`,
      );
    });
    info("/resume <number> continues one");
    return context.sessionId;
  }
  const byNumber = /^\d+$/.test(choice) ? sessions[Number(choice) - 1] : undefined;
  const picked = byNumber ?? sessions.find((session) => session.id.startsWith(choice));
  if (!picked) {
    info(`no session "${choice}"; /resume lists them`);
    return context.sessionId;
  }
  if (context.running) {
    info("a task is running; /stop it (or wait) before switching sessions");
    return context.sessionId;
  }
  info(`resumed the session from ${relativeTime(picked.updatedAt)} (${picked.id.slice(0, 8)})`);
  return picked.id;
}

/** `/memory` lists recent memories; `/memory <query>` searches them. */
export async function memoryCommand(context: SessionCommandContext, query: string): Promise<void> {
  const { app, info } = context;
  const memory = app.memory;
  if (!memory) {
    info("memory is disabled (memory.enabled: false in config.yaml)");
    return;
  }
  const views =
    query.trim() === ""
      ? memory.list({ userKey: "owner", limit: 10 })
      : (await memory.search({ userKey: "owner", query, limit: 10 })).map((result) => result.memory);
  if (views.length === 0) {
    info(query ? `no memory matches "${query}"` : "no memories yet");
    return;
  }
  for (const view of views)
    info(`#${view.id} [${view.kind}] ${view.text} (confidence ${view.confidence.toFixed(2)}, ${view.tier})`);
  info("details: mercury memory show <id>; history: mercury memory history <id>");
}

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

/** The line `/model` shows without an argument. */
export function currentModelLine(app: MercuryApp, scope = "for this chat only"): string {
  const current = app.chain.describe()[0];
  return `model: ${current?.provider}/${current?.model}; /model <id> switches (${scope})`;
}

/**
 * The primary provider now uses `model` (the fallbacks stay; nothing is saved). Returns the line to
 * show: the switch, or why it cannot be made.
 */
export function switchPrimaryModel(app: MercuryApp, model: string, scope = "for this chat"): string {
  const primary = app.config.chain[0];
  if (!primary) return "no provider is configured; run `mercury setup`";
  const [handle] = buildProviders([{ ...primary, model }], app.env, defaultModelFactory);
  if (!handle) return "no provider is configured; run `mercury setup`";
  if (handle.problem) return `cannot use ${model}: ${handle.problem}`;
  app.chain.replacePrimary(handle);
  return `model: ${handle.label}/${model} ${scope} (to keep it: mercury config set model ${model})`;
}

/** `/model` shows the primary model; `/model <id>` switches it for this chat (not saved). */
export function modelCommand(context: SessionCommandContext, model: string): void {
  const { app, info } = context;
  if (model === "") {
    info(currentModelLine(app));
    return;
  }
  if (context.running) {
    info("a task is running; /stop it (or wait) before switching the model");
    return;
  }
  info(switchPrimaryModel(app, model));
}

export interface SessionSummary {
  id: string;
  updatedAt: string;
  firstMessage: string | null;
}

/** The numbered list `/resume` shows: when, and the session's first message. */
export function resumeListLines(
  sessions: readonly SessionSummary[],
  currentId: string | null | undefined,
): string[] {
  if (sessions.length === 0) return ["no earlier sessions"];
  return [
    ...sessions.map((session, index) => {
      const first = (session.firstMessage ?? "(no message)").replace(/\s+/g, " ");
      const current = session.id === currentId ? " (current)" : "";
      return `${String(index + 1).padStart(2)}. ${relativeTime(session.updatedAt)}${current} — ${first.length > 60 ? `${first.slice(0, 59)}…` : first}`;
    }),
    "/resume <number> continues one",
  ];
}

/**
 * `/resume <n>` or an id prefix: the session picked, or the line saying why none was. Picking the
 * session the chat is already in is said as such: reloading it would show nothing new.
 */
export function pickSession(
  sessions: readonly SessionSummary[],
  choice: string,
  currentId: string | null | undefined,
): { session: SessionSummary } | { problem: string } {
  const byNumber = /^\d+$/.test(choice) ? sessions[Number(choice) - 1] : undefined;
  const picked = byNumber ?? sessions.find((session) => session.id.startsWith(choice));
  if (!picked) return { problem: `no session "${choice}"; /resume lists them` };
  if (picked.id === currentId)
    return {
      problem: `session ${choice} (${picked.id.slice(0, 8)}) is the current session already; nothing to resume`,
    };
  return { session: picked };
}

export function resumedLine(session: SessionSummary): string {
  return `resumed the session from ${relativeTime(session.updatedAt)} (${session.id.slice(0, 8)})`;
}

/**
 * `/resume` lists the recent terminal sessions; `/resume <n>` (or an id prefix) continues one.
 * Returns the session to continue with (unchanged when nothing was picked).
 */
export function resumeCommand(context: SessionCommandContext, choice: string): string | null {
  const { app, info } = context;
  const sessions = app.agent.transcriptStore.recentSessions("owner", "cli", 10);
  if (choice === "") {
    for (const line of resumeListLines(sessions, context.sessionId)) info(line);
    return context.sessionId;
  }
  const picked = pickSession(sessions, choice, context.sessionId);
  if ("problem" in picked) {
    info(picked.problem);
    return context.sessionId;
  }
  if (context.running) {
    info("a task is running; /stop it (or wait) before switching sessions");
    return context.sessionId;
  }
  info(resumedLine(picked.session));
  return picked.session.id;
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

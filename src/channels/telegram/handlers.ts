import type { Bot, Context } from "grammy";
import type { AgentGateway, ChannelInput, GatewayStatus } from "../types.js";
import { looksLikePairingCode, type TelegramAccess, userKeyFor } from "./access.js";
import { AttachmentTooLargeError, type DownloadRequest, downloadAttachment } from "./files.js";
import type { ChannelLogger } from "./logger.js";
import { escapeHtml } from "./markdown.js";
import type { PollerHealth } from "./poller.js";
import { type Prompts, parseCallbackData } from "./prompts.js";
import type { EventRouter } from "./routing.js";
import { describeError, type MessageSender } from "./transport.js";

export const CHANNEL_NAME = "telegram";

export const BOT_COMMANDS = [
  { command: "start", description: "Pair with a code, or say hello" },
  { command: "new", description: "Start a fresh session" },
  { command: "status", description: "Model, session, running task, budget" },
  { command: "stop", description: "Stop the running task" },
  { command: "memory", description: "Ask about your memory (forwarded to the agent)" },
  { command: "budget", description: "Token and cost budget today" },
  { command: "permissions", description: "Ask about permissions (forwarded to the agent)" },
  {
    command: "schedule",
    description: "Scheduled jobs: list, add, cancel (through the agent; changes ask you)",
  },
  { command: "help", description: "What I can do here" },
];

const HELP = [
  "Send me a message and I work on it; photos and documents are saved into the workspace.",
  "/new – fresh session · /stop – stop the running task · /status – what is going on",
  "/budget – spending today · /memory, /permissions – forwarded to the agent",
].join("\n");

const GROUP_REFUSAL =
  "I am a private assistant and do not work in groups or channels. Talk to me in a private chat.";

const MAX_PAIRING_FAILURES = 5;
const PAIRING_WINDOW_MS = 10 * 60 * 1000;

export interface HandlerDeps {
  gateway: AgentGateway;
  access: TelegramAccess;
  router: EventRouter;
  prompts: Prompts;
  sender: MessageSender;
  logger: ChannelLogger;
  health(): PollerHealth;
  /** Groups the owner enabled (`telegram.groups`). All other groups, supergroups and channels are refused. */
  groups: ReadonlySet<number>;
  download: { apiRoot: string; token: string; workspaceDir: string; maxBytes: number };
}

export function parseCommand(text: string): { name: string; args: string } | null {
  const match = /^\/([a-z_]+)(?:@\w+)?(?:\s+([\s\S]*))?$/i.exec(text.trim());
  return match ? { name: (match[1] ?? "").toLowerCase(), args: (match[2] ?? "").trim() } : null;
}

/** Every incoming message passes the access gate here before anything reaches the gateway. */
export function installHandlers(bot: Bot, deps: HandlerDeps): void {
  const pairingFailures = new Map<number, { count: number; since: number }>();

  const pair = async (ctx: Context, userId: number, code: string) => {
    const failures = pairingFailures.get(userId);
    if (failures !== undefined && Date.now() - failures.since > PAIRING_WINDOW_MS)
      pairingFailures.delete(userId);
    if ((pairingFailures.get(userId)?.count ?? 0) >= MAX_PAIRING_FAILURES) {
      await ctx.reply(
        "Too many wrong pairing codes. Wait 10 minutes, then run `mercury telegram pair` again.",
      );
      return;
    }
    const result = deps.access.redeemPairingCode(code, userId, ctx.from?.username ?? null);
    if (!result.ok) {
      const entry = pairingFailures.get(userId) ?? { count: 0, since: Date.now() };
      entry.count += 1;
      pairingFailures.set(userId, entry);
      deps.logger.warn({ userId, reason: result.reason }, "telegram pairing code refused");
      const why = { unknown: "is not valid", expired: "has expired", used: "was already used" }[
        result.reason
      ];
      await ctx.reply(
        `That pairing code ${why}. Run \`mercury telegram pair\` on your machine for a new one.`,
      );
      return;
    }
    pairingFailures.delete(userId);
    deps.logger.info({ userId, replacedOwner: result.replacedOwner }, "telegram owner paired");
    await ctx.reply(`Paired: you are the owner of this Mercury. ${HELP}`);
  };

  // Channels: posts have no sender to check and everything said there is public. Refused before the model.
  bot.on("channel_post", async (ctx) => {
    deps.logger.info({ chatId: ctx.chat.id }, "telegram channel post refused");
    await ctx.reply(GROUP_REFUSAL);
  });

  bot.on("message", async (ctx) => {
    const from = ctx.from;
    const chatId = ctx.chat.id;
    const message = ctx.message;
    const text = message.text ?? message.caption ?? "";
    const command = parseCommand(text);
    const inGroup = ctx.chat.type !== "private";
    if (inGroup && !deps.groups.has(chatId)) {
      deps.logger.info({ chatId, chatType: ctx.chat.type }, "telegram group message refused");
      await ctx.reply(GROUP_REFUSAL);
      return;
    }
    if (inGroup && (command !== null || looksLikePairingCode(text))) {
      // Pairing, /status, /budget and the like answer with private things: only in a private chat.
      await ctx.reply("Commands and pairing work only in a private chat with me.");
      return;
    }
    const user = deps.access.activeUser(from.id);
    if (command?.name === "start" && command.args !== "") return pair(ctx, from.id, command.args);
    if (user === null && looksLikePairingCode(text)) return pair(ctx, from.id, text);
    if (user === null) {
      deps.logger.info({ userId: from.id, chatId }, "telegram message from an unknown user refused");
      await ctx.reply(
        `This is a private assistant. Ask its owner to run: mercury telegram approve ${from.id}\n` +
          "If you are the owner, run `mercury telegram pair` on your machine and send /start with the code.",
      );
      return;
    }
    const userKey = userKeyFor(user);
    if (command !== null && (await runCommand(ctx, command, userKey, deps))) return;

    const question = text.trim() === "" ? null : deps.prompts.takeFreeTextQuestion(userKey);
    if (question !== null) {
      await deps.gateway.answerQuestion(question.questionId, text, userKey);
      deps.prompts.settleQuestion(question, text);
      return;
    }

    const requests: (DownloadRequest & { kind: "photo" | "document" })[] = [];
    const photo = message.photo?.at(-1);
    if (photo !== undefined) {
      requests.push({
        kind: "photo",
        fileId: photo.file_id,
        name: `photo-${photo.file_unique_id}.jpg`,
        size: photo.file_size,
      });
    }
    if (message.document !== undefined) {
      const document = message.document;
      requests.push({
        kind: "document",
        fileId: document.file_id,
        name: document.file_name ?? `document-${document.file_unique_id}`,
        size: document.file_size,
      });
    }
    const attachments: NonNullable<ChannelInput["attachments"]> = [];
    for (const request of requests) {
      try {
        const path = await downloadAttachment({ api: ctx.api, ...deps.download, request });
        attachments.push({ path, kind: request.kind, name: request.name });
      } catch (error) {
        deps.logger.warn({ chatId, error: describeError(error) }, "telegram attachment not saved");
        const why = error instanceof AttachmentTooLargeError ? error.message : describeError(error);
        await ctx.reply(`I could not save ${request.name}: ${why}`);
        return;
      }
    }
    if (text.trim() === "" && attachments.length === 0) {
      await ctx.reply("I can read text, photos and documents; this kind of message is not supported.");
      return;
    }
    const taskText =
      text.trim() !== ""
        ? text
        : `(sent ${attachments.map((item) => `${item.kind} ${item.name}`).join(", ")})`;
    await submit(ctx, deps, { userKey, channel: CHANNEL_NAME, text: taskText, attachments }, from.id);
  });

  bot.on("callback_query:data", async (ctx) => {
    const action = parseCallbackData(ctx.callbackQuery.data);
    const user = deps.access.activeUser(ctx.from.id);
    if (user === null || action === null) {
      await ctx.answerCallbackQuery({
        text: user === null ? "You are not allowed to use this bot." : "Unknown button.",
      });
      return;
    }
    const userKey = userKeyFor(user);
    const message = ctx.callbackQuery.message;
    const pending =
      action.kind === "approval" ? deps.prompts.approval(action.token) : deps.prompts.question(action.token);
    if (pending === null) {
      await ctx.answerCallbackQuery({ text: "This is no longer waiting for an answer." });
      if (message !== undefined) await deps.prompts.removeStaleButtons(message.chat.id, message.message_id);
      return;
    }
    if (pending.userKey !== userKey) {
      await ctx.answerCallbackQuery({ text: "This belongs to another person's task.", show_alert: true });
      return;
    }
    try {
      if (action.kind === "approval") {
        const approval = deps.prompts.approval(action.token);
        if (approval === null) throw new Error("the approval was settled meanwhile");
        await deps.gateway.answerApproval(approval.approvalId, action.decision, userKey);
        deps.prompts.settleApproval(approval.approvalId, action.decision, "you");
        await ctx.answerCallbackQuery({ text: `Answered: ${action.decision}` });
        return;
      }
      const question = deps.prompts.question(action.token);
      const choice = question?.choices[action.choice];
      if (question === null || choice === undefined) {
        await ctx.answerCallbackQuery({ text: "Unknown choice." });
        return;
      }
      await deps.gateway.answerQuestion(question.questionId, choice, userKey);
      deps.prompts.settleQuestion(question, choice);
      await ctx.answerCallbackQuery({ text: choice });
    } catch (error) {
      deps.logger.error(
        { userKey, error: describeError(error) },
        "telegram answer not accepted by the agent",
      );
      await ctx.answerCallbackQuery({
        text: `Not accepted: ${describeError(error)}`.slice(0, 190),
        show_alert: true,
      });
    }
  });
}

async function submit(ctx: Context, deps: HandlerDeps, input: ChannelInput, senderId: number): Promise<void> {
  const chatId = ctx.chat?.id;
  if (chatId === undefined) throw new Error("a message without a chat cannot start a task");
  const group = ctx.chat?.type !== "private";
  const done = deps.router.beginSubmit(input.userKey, chatId, group ? senderId : undefined);
  try {
    try {
      await ctx.api.sendChatAction(chatId, "typing");
    } catch (error) {
      deps.logger.warn({ chatId, error: describeError(error) }, "telegram typing indicator failed");
    }
    const { taskId } = await deps.gateway.submit(input);
    deps.router.bindTask(taskId, chatId, input.userKey);
    // Approvals, questions and memory receipts of a task started in a group go to the sender's private chat.
    if (group) deps.router.bindPrivateChat(taskId, senderId);
  } catch (error) {
    deps.logger.error({ chatId, error: describeError(error) }, "telegram task could not be started");
    await ctx.reply(`I could not start that: ${describeError(error)}`);
  } finally {
    done();
  }
}

async function runCommand(
  ctx: Context,
  command: { name: string; args: string },
  userKey: string,
  deps: HandlerDeps,
): Promise<boolean> {
  const { gateway } = deps;
  switch (command.name) {
    case "start":
    case "help":
      await ctx.reply(HELP);
      return true;
    case "new": {
      const sessionId = await gateway.newSession(userKey, CHANNEL_NAME);
      await ctx.reply(`New session started (${sessionId}).`);
      return true;
    }
    case "stop":
      await ctx.reply((await gateway.stop(userKey)) ? "Stopped the running task." : "Nothing is running.");
      return true;
    case "status":
      await ctx.reply(formatStatus(await gateway.status(userKey), deps.health()), { parse_mode: "HTML" });
      return true;
    case "budget":
      await ctx.reply(formatBudget(await gateway.status(userKey)));
      return true;
    case "memory":
    case "permissions":
    case "schedule":
      // The agent owns memory and permissions; it receives the command as text and answers it.
      await submit(
        ctx,
        deps,
        {
          userKey,
          channel: CHANNEL_NAME,
          text: `/${command.name} ${command.args}`.trim(),
        },
        ctx.from?.id ?? 0,
      );
      return true;
    default:
      await ctx.reply(`Unknown command /${command.name}. ${HELP}`);
      return true;
  }
}

export function formatBudget(status: GatewayStatus): string {
  const { budget } = status;
  const tokens =
    budget.dailyTokenLimit === null
      ? `${budget.tokensToday} tokens`
      : `${budget.tokensToday} / ${budget.dailyTokenLimit} tokens`;
  const cost =
    budget.dailyUsdLimit === null
      ? `$${budget.costToday.toFixed(4)}`
      : `$${budget.costToday.toFixed(4)} / $${budget.dailyUsdLimit.toFixed(2)}`;
  return `Budget today: ${tokens}, ${cost}`;
}

export function formatStatus(status: GatewayStatus, health: PollerHealth): string {
  return [
    `<b>Model</b>: ${escapeHtml(status.provider)} / ${escapeHtml(status.model)}`,
    `<b>Session</b>: ${escapeHtml(status.sessionId ?? "none")}`,
    `<b>Running task</b>: ${escapeHtml(status.runningTaskId ?? "none")}`,
    escapeHtml(formatBudget(status)),
    `<b>Allow-all</b>: ${escapeHtml(status.allowAllUntil === null ? "off" : `until ${status.allowAllUntil}`)}`,
    `<b>Telegram</b>: last poll ${escapeHtml(health.lastPollAt ?? "never")}${health.lastError === null ? "" : ` · ${escapeHtml(health.lastError)}`}`,
  ].join("\n");
}

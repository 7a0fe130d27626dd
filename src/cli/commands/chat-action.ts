import { resolve } from "node:path";
import { createTaskAuthorizer } from "../../app/authorization.js";
import { createApp, type MercuryApp } from "../../app/container.js";
import { TerminalChat } from "../../channels/cli/chat.js";
import { userHomeOf, workspaceRefusal } from "../../sandbox/workspace.js";
import { existingFolder } from "../existing-folder.js";
import { configFlagsFrom, type GlobalFlags } from "../flags.js";
import { assertUsableProvider } from "../provider-guard.js";
import { stderrColors } from "../terminal.js";
import type { ChatCommandOptions } from "./chat.js";

/** How long chat waits at exit for the last turn's memory extraction before leaving it queued. */
const exitDrainMs = 15_000;

export async function runChat(options: ChatCommandOptions, globals: GlobalFlags): Promise<void> {
  if (options.cwd !== undefined) existingFolder(options.cwd);
  if (await attachIfRunning(options)) return;
  await assertUsableProvider(configFlagsFrom(globals));
  const app = createApp({ flags: configFlagsFrom(globals), extractAfterTasks: true });
  try {
    const cwd = resolve(options.cwd ?? process.cwd());
    const refusal = workspaceRefusal(cwd, userHomeOf(app.env), app.home);
    // Talking needs no workspace; running commands does, and run_command refuses them here.
    if (refusal) process.stderr.write(`mercury: commands will not run in this chat. ${refusal}\n`);
    const sessionId = options.new ? app.agent.transcriptStore.createSession("owner", "cli") : options.session;
    const chat = new TerminalChat(app, {
      input: process.stdin,
      output: process.stdout,
      errorOutput: process.stderr,
      interactive: Boolean(process.stdin.isTTY),
      colors: stderrColors(),
      cwd,
      ...(sessionId ? { sessionId } : {}),
      drain: () => drainAtExit(app, Boolean(process.stdin.isTTY)),
      authorizerFor: (task) => createTaskAuthorizer(app, { ...task, cwd, mode: "ask" }),
    });
    await chat.start();
  } finally {
    app.close();
  }
}

/** How long the exit waits, silently, before saying what it waits for. */
const exitNoticeMs = 400;

/**
 * At exit the last turn's memory extraction gets up to exitDrainMs to finish, so what was said is
 * remembered. At a terminal a wait that lasts says so, and Ctrl+C ends it at once: the job is
 * aborted (background work stops as at the time limit). (Before, the
 * chat sat silent for up to 15 s after Ctrl+C twice or Ctrl+D, looking hung.)
 */
async function drainAtExit(app: MercuryApp, interactive: boolean): Promise<void> {
  if (!interactive) return app.drain(exitDrainMs);
  let skipped: Promise<void> | null = null;
  const leaveNow = (): void => {
    skipped ??= app.drain(0);
  };
  // `on`, not `once`: a second press during the wait must not fall through to the default (exit 130).
  process.on("SIGINT", leaveNow);
  const notice = setTimeout(() => {
    process.stderr.write("saving what to remember from this chat… (Ctrl+C to leave now)\n");
  }, exitNoticeMs);
  try {
    await app.drain(exitDrainMs);
    if (skipped) await skipped;
  } finally {
    clearTimeout(notice);
    process.removeListener("SIGINT", leaveNow);
  }
}

/** With a daemon up, chat attaches to it (one agent, memory and ledger for terminal and Telegram). */
async function attachIfRunning(options: ChatCommandOptions): Promise<boolean> {
  const { loadSettings } = await import("../../config/settings.js");
  const { DaemonClient } = await import("../../daemon/client.js");
  const { paths, config } = loadSettings();
  const client = await DaemonClient.tryConnect(paths.socket);
  if (!client) return false;
  const { attachChat } = await import("../../channels/cli/attach.js");
  const { formatStatus } = await import("./daemon-status.js");
  let sessionId = options.session;
  if (options.new) {
    const created = await client.request({ type: "new-session" });
    if (
      typeof created === "object" &&
      created !== null &&
      "sessionId" in created &&
      typeof created.sessionId === "string"
    )
      sessionId = created.sessionId;
  }
  await attachChat(client, {
    input: process.stdin,
    output: process.stdout,
    errorOutput: process.stderr,
    colors: stderrColors(),
    showReceipts: config.memory.showReceipts,
    cwd: resolve(options.cwd ?? process.cwd()),
    ...(sessionId ? { sessionId } : {}),
    formatStatus,
  });
  return true;
}

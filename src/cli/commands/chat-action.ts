import { resolve } from "node:path";
import { createTaskAuthorizer } from "../../app/authorization.js";
import { createApp } from "../../app/container.js";
import { TerminalChat } from "../../channels/cli/chat.js";
import { configFlagsFrom, type GlobalFlags } from "../flags.js";
import { stderrColors } from "../terminal.js";
import type { ChatCommandOptions } from "./chat.js";

export async function runChat(options: ChatCommandOptions, globals: GlobalFlags): Promise<void> {
  const app = createApp({ flags: configFlagsFrom(globals), extractAfterTasks: true });
  try {
    const cwd = resolve(options.cwd ?? process.cwd());
    const sessionId = options.new ? app.agent.transcriptStore.createSession("owner", "cli") : options.session;
    const chat = new TerminalChat(app, {
      input: process.stdin,
      output: process.stdout,
      errorOutput: process.stderr,
      interactive: Boolean(process.stdin.isTTY),
      colors: stderrColors(),
      cwd,
      ...(sessionId ? { sessionId } : {}),
      authorizerFor: (task) => createTaskAuthorizer(app, { ...task, cwd, mode: "ask" }),
    });
    await chat.start();
    await app.drain();
  } finally {
    app.close();
  }
}

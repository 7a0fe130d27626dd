import { resolve } from "node:path";
import type { Command } from "commander";
import { createTaskAuthorizer } from "../../app/authorization.js";
import { createApp } from "../../app/container.js";
import { TerminalChat } from "../../channels/cli/chat.js";
import { configFlagsFrom, type GlobalFlags } from "../flags.js";
import { stderrColors } from "../terminal.js";

export function registerChatCommand(program: Command): void {
  program
    .command("chat")
    .description("interactive streaming session")
    .option("--session <id>", "continue this session (default: the latest terminal session)")
    .option("--new", "start a new session")
    .option("--cwd <dir>", "working directory for tasks")
    .action(async (options: { session?: string; new?: boolean; cwd?: string }, command: Command) => {
      const app = createApp({ flags: configFlagsFrom(command.optsWithGlobals<GlobalFlags>()) });
      try {
        const cwd = resolve(options.cwd ?? process.cwd());
        const sessionId = options.new
          ? app.agent.transcriptStore.createSession("owner", "cli")
          : options.session;
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
      } finally {
        app.close();
      }
    });
}

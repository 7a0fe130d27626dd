import type { Command } from "commander";
import type { GlobalFlags } from "../flags.js";

export interface ChatCommandOptions {
  session?: string;
  new?: boolean;
  cwd?: string;
}

export function registerChatCommand(program: Command): void {
  program
    .command("chat")
    .description("interactive streaming session")
    .option("--session <id>", "continue this session (default: the latest terminal session)")
    .option("--new", "start a new session")
    .option("--cwd <dir>", "working directory for tasks")
    .action(async (options: ChatCommandOptions, command: Command) => {
      const { runChat } = await import("./chat-action.js");
      await runChat(options, command.optsWithGlobals<GlobalFlags>());
    });
}

import type { Command } from "commander";

export interface SetupOptions {
  provider?: string;
  model?: string;
  baseUrl?: string;
  skipTest?: boolean;
  telegramToken?: string;
}

export function registerSetupCommand(program: Command): void {
  program
    .command("setup")
    .description("first-run wizard: provider, key, model, live connection test, Telegram")
    .option("--provider <name>", "skip the question: provider")
    .option("--model <id>", "skip the question: model")
    .option("--base-url <url>", "skip the question: base URL (openai-compatible, ollama)")
    .option("--skip-test", "do not run the live connection test")
    .option("--telegram-token <token>", "store a Telegram bot token in .env")
    .action(async (options: SetupOptions, command: Command) => {
      const { runSetup } = await import("./setup-action.js");
      process.exitCode = await runSetup({ ...command.optsWithGlobals<SetupOptions>(), ...options });
    });
}

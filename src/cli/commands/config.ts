import type { Command } from "commander";
import type { GlobalFlags } from "../flags.js";

export function registerConfigCommands(program: Command): void {
  const config = program
    .command("config")
    .description("read and change the common settings in config.yaml (validated like the file)");
  config
    .command("list")
    .description("every common setting with its effective value and where it comes from")
    .option("--json", "print one JSON document")
    .action(async (options: { json?: boolean }, command: Command) => {
      const { listSettings } = await import("./config-action.js");
      listSettings(command.optsWithGlobals<GlobalFlags>(), Boolean(options.json));
    });
  config
    .command("get")
    .description("print one setting's effective value")
    .argument("<key>", "e.g. model, agent.maxSteps, budget.dailyUsd")
    .option("--json", "print one JSON document: {key, value}")
    .action(async (key: string, options: { json?: boolean }, command: Command) => {
      const { getSetting } = await import("./config-action.js");
      getSetting(key, command.optsWithGlobals<GlobalFlags>(), Boolean(options.json));
    });
  config
    .command("set")
    .description("change one setting in config.yaml (comments and other keys are kept)")
    .argument("<key>", "e.g. model, agent.maxSteps, budget.dailyUsd")
    .argument("<value>", "the new value; `null` clears a limit")
    .option("--json", "print one JSON document: {key, value, saved}")
    .action(async (key: string, value: string, options: { json?: boolean }) => {
      const { setSetting } = await import("./config-action.js");
      setSetting(key, value, Boolean(options.json));
    });
}

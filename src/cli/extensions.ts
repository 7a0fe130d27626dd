import type { Command } from "commander";
import { loadSettings } from "../config/settings.js";
import { openDatabase } from "../storage/database.js";

type Registrar = (program: Command) => Promise<void>;

/**
 * Command groups that live with their domain. Each is imported only when its command is used (or
 * for --help), so `mercury --version` and `mercury run` do not pay for the others' start-up.
 */
const groups: Record<string, Registrar> = {
  policy: async (program) => {
    const { registerPolicyCommands } = await import("./commands/policy.js");
    const { paths, config, env } = loadSettings();
    registerPolicyCommands(program, {
      openDatabase: () => openDatabase(paths.database),
      home: paths.home,
      writeRoots: config.permissions.writeRoots,
      readRoots: config.permissions.readRoots,
      ...(env.HOME ? { userHome: env.HOME } : {}),
    });
  },
  telegram: async (program) => {
    const { registerTelegramCommands } = await import("./commands/telegram.js");
    const { paths } = loadSettings();
    registerTelegramCommands(program, { openDatabase: () => openDatabase(paths.database) });
  },
};

export async function registerExtensionCommands(program: Command, argv: readonly string[]): Promise<void> {
  const first = argv.slice(2).find((argument) => !argument.startsWith("-"));
  const wanted =
    first && first in groups ? [first] : first === undefined || first === "help" ? Object.keys(groups) : [];
  for (const name of wanted) await groups[name]?.(program);
}

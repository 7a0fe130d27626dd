import type { Command } from "commander";
import { ConfigError } from "../config/errors.js";
import { loadSettings } from "../config/settings.js";
import { openDatabase } from "../storage/database.js";

type Registrar = (program: Command) => Promise<void>;

/** start/stop/restart/status/logs/daemon are one group: registered once whichever name is used. */
const daemonRegistered = new WeakSet<Command>();
const daemonCommands: Registrar = async (program) => {
  if (daemonRegistered.has(program)) return;
  daemonRegistered.add(program);
  const { registerDaemonCommands } = await import("./commands/daemon.js");
  registerDaemonCommands(program);
};

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
  bench: async (program) => {
    const { registerBenchCommands } = await import("./commands/bench.js");
    registerBenchCommands(program);
  },
  memory: async (program) => {
    const { registerMemoryCommands } = await import("./commands/memory.js");
    const { createApp } = await import("../app/container.js");
    registerMemoryCommands(program, async () => {
      const app = createApp();
      if (!app.memory) {
        app.close();
        throw new ConfigError(
          "memory is disabled (memory.enabled: false in config.yaml); enable it to use `mercury memory`.",
        );
      }
      return app.memory;
    });
  },
  telegram: async (program) => {
    const { registerTelegramCommands } = await import("./commands/telegram.js");
    const { paths } = loadSettings();
    registerTelegramCommands(program, { openDatabase: () => openDatabase(paths.database) });
  },
  start: daemonCommands,
  stop: daemonCommands,
  restart: daemonCommands,
  status: daemonCommands,
  logs: daemonCommands,
  daemon: daemonCommands,
  service: async (program) => {
    const { registerServiceCommands } = await import("./commands/service.js");
    registerServiceCommands(program);
  },
};

export async function registerExtensionCommands(program: Command, argv: readonly string[]): Promise<void> {
  const first = argv.slice(2).find((argument) => !argument.startsWith("-"));
  const wanted =
    first && first in groups ? [first] : first === undefined || first === "help" ? Object.keys(groups) : [];
  for (const name of wanted) await groups[name]?.(program);
}

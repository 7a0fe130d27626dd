import type { Command } from "commander";
import { configFlagsFrom, type GlobalFlags } from "./flags.js";

/** Config and the database opener, loaded only by the groups that need them. */
async function settingsAndDatabase() {
  const [{ loadSettings }, { openDatabase }] = await Promise.all([
    import("../config/settings.js"),
    import("../storage/database.js"),
  ]);
  return { settings: loadSettings(), openDatabase };
}

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
    const {
      settings: { paths, config, env },
      openDatabase,
    } = await settingsAndDatabase();
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
    // Only settings, the database and the memory service: never the agent, providers or daemon.
    const [{ registerMemoryCommands }, { openMemoryForCli }] = await Promise.all([
      import("./commands/memory.js"),
      import("../app/memory-cli.js"),
    ]);
    // The root flags (--provider, --model, --base-url) choose the judge's model, as for chat.
    registerMemoryCommands(
      program,
      async () => (await openMemoryForCli({ flags: configFlagsFrom(program.opts<GlobalFlags>()) })).service,
    );
  },
  telegram: async (program) => {
    const { registerTelegramCommands, telegramNotReady } = await import("./commands/telegram.js");
    const { settings, openDatabase } = await settingsAndDatabase();
    registerTelegramCommands(program, {
      openDatabase: () => openDatabase(settings.paths.database),
      notReady: () => telegramNotReady(settings),
    });
  },
  schedule: async (program) => (await import("./commands/schedule.js")).registerScheduleCommands(program),
  agents: async (program) => (await import("./commands/agents.js")).registerAgentsCommands(program),
  dashboard: async (program) => (await import("./commands/dashboard.js")).registerDashboardCommands(program),
  start: daemonCommands,
  stop: daemonCommands,
  restart: daemonCommands,
  status: daemonCommands,
  logs: daemonCommands,
  daemon: daemonCommands,
  skills: async (program) => {
    const { registerSkillsCommands } = await import("./commands/skills.js");
    registerSkillsCommands(program);
  },
  undo: async (program) => {
    const { registerUndoCommand } = await import("./commands/undo.js");
    registerUndoCommand(program);
  },
  tasks: async (program) => {
    const { registerTasksCommand } = await import("./commands/tasks.js");
    registerTasksCommand(program);
  },
  backup: async (program) => {
    const { registerBackupCommands } = await import("./commands/backup.js");
    registerBackupCommands(program);
  },
  mcp: async (program) => {
    const { registerMcpCommands } = await import("./commands/mcp.js");
    registerMcpCommands(program);
  },
  service: async (program) => {
    const { registerServiceCommands } = await import("./commands/service.js");
    registerServiceCommands(program);
  },
};

/** The root program's options that take a value (`--provider openai memory list`). */
const valueOptions = new Set(["--provider", "--model", "--base-url"]);

/** The command word: the first argument that is neither an option nor a root option's value. */
function commandWord(args: readonly string[]): string | undefined {
  for (let index = 0; index < args.length; index++) {
    const argument = args[index] as string;
    if (!argument.startsWith("-")) return argument;
    if (valueOptions.has(argument)) index++;
  }
  return undefined;
}

/** The group a command line runs (memory, policy, …), or null for a core command, help or none. */
export function commandGroupOf(argv: readonly string[]): string | null {
  const first = commandWord(argv.slice(2));
  return first !== undefined && first in groups ? first : null;
}

export async function registerExtensionCommands(program: Command, argv: readonly string[]): Promise<void> {
  const args = argv.slice(2);
  const first = commandWord(args);
  // Every group only when the full command list will be printed (help, or no arguments at all).
  const listing =
    first === "help" || (first === undefined && !args.includes("-V") && !args.includes("--version"));
  const wanted = first && first in groups ? [first] : listing ? Object.keys(groups) : [];
  for (const name of wanted) await groups[name]?.(program);
}

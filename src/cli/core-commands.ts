import type { Command } from "commander";
import { registerChatCommand } from "./commands/chat.js";
import { registerConfigCommands } from "./commands/config.js";
import { registerDoctorCommand } from "./commands/doctor.js";
import { registerRunCommand } from "./commands/run.js";
import { registerSetupCommand } from "./commands/setup.js";
import { registerSoulCommands } from "./commands/soul.js";
import { registerUsageCommand } from "./commands/usage.js";

/** The commands declared on the program itself (the groups are in extensions.ts), in help order. */
export function registerCoreCommands(program: Command): void {
  registerSetupCommand(program);
  registerChatCommand(program);
  registerRunCommand(program);
  registerConfigCommands(program);
  registerDoctorCommand(program);
  registerUsageCommand(program);
  registerSoulCommands(program);
}

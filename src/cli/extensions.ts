import type { Command } from "commander";

/** Command groups that live with their domain (memory, bench, policy, telegram, daemon). */
export function registerExtensionCommands(_program: Command): void {}

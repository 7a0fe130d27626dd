#!/usr/bin/env node
/**
 * Standalone entry for the benchmarks until they are reached through the main CLI:
 *   npx tsx src/cli/commands/bench-main.ts bench retrieval --data ../shared/bench/locomo-dev.json --json
 */
import { Command } from "commander";
import { registerBenchCommands } from "./bench.js";

const program = new Command("mercury").exitOverride((error) => {
  process.exit(error.exitCode === 0 ? 0 : 2);
});
registerBenchCommands(program);
await program.parseAsync(process.argv);

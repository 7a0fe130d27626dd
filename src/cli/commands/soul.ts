import { platform } from "node:os";
import type { Command } from "commander";

export function registerSoulCommands(program: Command): void {
  const soul = program.command("soul").description("the soul files that define Mercury's identity");
  soul
    .command("show")
    .description("print the assembled system prompt exactly as the model receives it")
    .option("--json", "print one JSON document")
    .action(async (options: { json?: boolean }) => {
      const [{ loadSettings }, { assembleSystemPrompt, ensureSoulFiles, readSoul }] = await Promise.all([
        import("../../config/settings.js"),
        import("../../soul/soul.js"),
      ]);
      const { paths, config } = loadSettings();
      const { builtinTools } = await import("../../tools/builtin.js");
      const memoryToolNames = config.memory.enabled ? ["memory_search", "memory_save", "memory_forget"] : [];
      const toolNames = [...builtinTools().map((tool) => tool.name), ...memoryToolNames];
      const created = ensureSoulFiles(paths.soul);
      const prompt = assembleSystemPrompt(readSoul(paths.soul), {
        cwd: process.cwd(),
        platform: platform(),
        date: new Date().toISOString().slice(0, 10),
        toolNames,
      });
      if (options.json) {
        process.stdout.write(`${JSON.stringify({ soulDirectory: paths.soul, created, prompt })}\n`);
        return;
      }
      if (created.length > 0) process.stderr.write(`created from templates: ${created.join(", ")}\n`);
      process.stdout.write(`${prompt}\n`);
    });
}

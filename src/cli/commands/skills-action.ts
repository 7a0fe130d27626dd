import { homedir } from "node:os";
import { resolve } from "node:path";
import { systemClock } from "../../agent/clock.js";
import { loadSettings } from "../../config/settings.js";
import { SkillError, SkillService } from "../../skills/service.js";
import { openDatabase } from "../../storage/database.js";
import { exitCodes } from "../exit-codes.js";
import type { SkillsCommandOptions } from "./skills.js";

export interface SkillsOutput {
  stdout(text: string): void;
  stderr(text: string): void;
}

const standardOutput: SkillsOutput = {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
};

/** Opens the skills state for one command and runs it; a SkillError is a failure with its message. */
export async function runSkillsAction(
  name: string,
  args: string[],
  options: SkillsCommandOptions,
  output: SkillsOutput = standardOutput,
): Promise<void> {
  const { paths, env } = loadSettings();
  const database = openDatabase(paths.database);
  const service = new SkillService({
    home: paths.home,
    userHome: env.HOME && env.HOME.trim() !== "" ? env.HOME : homedir(),
    database,
    clock: systemClock,
  });
  try {
    const { skillsCommands } = await import("./skills-commands.js");
    const command = skillsCommands[name];
    if (!command) throw new SkillError(`unknown skills command "${name}"`);
    await command({ service, args, options, output, cwd: resolve(options.cwd ?? process.cwd()), env });
  } catch (error) {
    if (!(error instanceof SkillError)) throw error;
    if (options.json) output.stdout(`${JSON.stringify({ ok: false, error: error.message })}\n`);
    output.stderr(`mercury: ${error.message}\n`);
    process.exitCode = error.usage ? exitCodes.usage : exitCodes.failure;
  } finally {
    database.close();
  }
}

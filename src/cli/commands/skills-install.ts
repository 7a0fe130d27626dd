import { createInterface } from "node:readline/promises";
import { commitSkill, stageSkill } from "../../skills/install.js";
import { SkillError } from "../../skills/service.js";
import type { SkillsCommandContext } from "./skills-commands.js";

/**
 * `mercury skills install <source>`: read and scan the skill, show it, ask, then write it. The
 * CLI is the owner's; there is no tool for the agent to install skills and no Telegram command.
 */
export async function installCommand(context: SkillsCommandContext): Promise<void> {
  const source = context.args[0] ?? "";
  const controller = new AbortController();
  const staged = await stageSkill(source, { requestedBy: "owner", signal: controller.signal });
  const shown = {
    name: staged.skill.name,
    description: staged.skill.description,
    files: staged.files.map((file) => ({ path: file.path, bytes: file.data.length })),
    totalBytes: staged.totalBytes,
    scripts: staged.scripts,
    allowedTools: staged.skill.allowedTools,
    findings: staged.findings,
    warnings: staged.skill.warnings,
  };
  if (!context.options.json) {
    const lines = [
      `Skill "${shown.name}": ${shown.description}`,
      `  ${shown.files.length} file(s), ${shown.totalBytes} bytes: ${shown.files.map((file) => file.path).join(", ")}`,
      `  scripts (they would run only through run_command, with approval): ${shown.scripts.join(", ") || "none"}`,
      ...(shown.allowedTools
        ? [`  allowed-tools (can only narrow, never grant): ${shown.allowedTools.join(" ")}`]
        : []),
      ...shown.warnings.map((warning) => `  warning: ${warning}`),
      ...(shown.findings.length === 0
        ? ["  scan: nothing suspicious found"]
        : [
            `  scan found ${shown.findings.length} problem(s):`,
            ...shown.findings.map((f) => `    ${f.rule} at ${f.file}:${f.line}: ${f.excerpt}`),
          ]),
    ];
    context.output.stdout(`${lines.join("\n")}\n`);
  }
  if (staged.findings.length > 0 && !context.options.force) {
    if (context.options.json)
      context.output.stdout(`${JSON.stringify({ installed: false, skill: shown })}\n`);
    throw new SkillError(
      `not installed: the scan found ${staged.findings.length} problem(s) (above); if you have read them and trust this skill, rerun with --force`,
    );
  }
  if (!context.options.yes) {
    if (!process.stdin.isTTY)
      throw new SkillError(
        "not installed: confirm in a terminal, or pass --yes after reading the listing above",
        true,
      );
    const prompt = createInterface({ input: process.stdin, output: process.stdout });
    const answer = await prompt.question(`Install "${shown.name}" into your skills? [y/N] `);
    prompt.close();
    if (!/^y(es)?$/i.test(answer.trim())) throw new SkillError("not installed: you said no");
  }
  const result = commitSkill(context.service, staged, { force: context.options.force === true });
  if (context.options.json)
    context.output.stdout(`${JSON.stringify({ installed: true, skill: shown, ...result })}\n`);
  else
    context.output.stdout(`Installed "${shown.name}" in ${result.directory} (version ${result.version}).\n`);
}

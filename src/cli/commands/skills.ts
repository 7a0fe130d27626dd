import type { Command } from "commander";

export interface SkillsCommandOptions {
  json?: boolean;
  cwd?: string;
  force?: boolean;
  yes?: boolean;
}

/** `mercury skills …`: declared here, the work is in skills-action.ts (loaded when a command runs). */
export function registerSkillsCommands(program: Command): void {
  const run =
    (name: string) =>
    async (...args: unknown[]) => {
      const { runSkillsAction } = await import("./skills-action.js");
      const command = args[args.length - 1] as Command;
      const positional = args.slice(0, -2).filter((value): value is string => typeof value === "string");
      await runSkillsAction(name, positional, command.opts<SkillsCommandOptions>());
    };
  const skills = program
    .command("skills")
    .description("skills in the Agent Skills format: list, inspect, install, review learned drafts");
  skills
    .command("list")
    .description("every skill found, where it comes from, and the ones that failed to load (with why)")
    .option("--cwd <dir>", "workspace whose .agents/skills count (only when trusted)")
    .option("--json", "print one JSON document")
    .action(run("list"));
  skills
    .command("show")
    .description("one skill: frontmatter, files, uses and outcomes, versions")
    .argument("<name>")
    .option("--cwd <dir>", "workspace whose .agents/skills count (only when trusted)")
    .option("--json", "print one JSON document")
    .action(run("show"));
  for (const [name, description] of [
    ["enable", "let the agent use a disabled skill again"],
    ["disable", "keep a skill out of the catalogue (nothing is deleted)"],
    ["remove", "delete a skill Mercury manages ($MERCURY_HOME/skills); revertible with `skills revert`"],
    [
      "approve",
      "accept a skill in $MERCURY_HOME/skills or ~/.agents/skills that changed on disk after it was approved",
    ],
  ] as const) {
    skills
      .command(name)
      .description(description)
      .argument("<name>")
      .option("--json", "print one JSON document")
      .action(run(name));
  }
  skills
    .command("trust")
    .description("read skills from this workspace's .agents/skills (persisted)")
    .argument("[dir]", "workspace folder (default: the current one)")
    .option("--json", "print one JSON document")
    .action(run("trust"));
  skills
    .command("untrust")
    .description("stop reading skills from this workspace")
    .argument("[dir]", "workspace folder (default: the current one)")
    .option("--json", "print one JSON document")
    .action(run("untrust"));
  skills
    .command("review")
    .description("learned skill drafts waiting for you: list, or `approve <id>` / `reject <id>`")
    .argument("[action]", "approve or reject")
    .argument("[id]", "draft id")
    .option("--json", "print one JSON document")
    .action(run("review"));
  skills
    .command("revert")
    .description("restore an earlier version of a skill Mercury manages")
    .argument("<name>")
    .argument("<version>", "version number from `skills show`")
    .option("--json", "print one JSON document")
    .action(run("revert"));
  skills
    .command("install")
    .description(
      "install a skill from a folder, a git URL or an https URL of a .tar.gz archive (scanned first)",
    )
    .argument("<source>")
    .option("--force", "install even though the scan found something (after reading the findings)")
    .option("--yes", "do not ask for confirmation (scripts); the scan still blocks without --force")
    .option("--json", "print one JSON document")
    .action(run("install"));
}

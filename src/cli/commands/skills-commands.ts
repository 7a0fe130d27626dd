import { readdirSync, realpathSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { SkillError, type SkillService } from "../../skills/service.js";
import type { Skill } from "../../skills/types.js";
import type { SkillsCommandOptions } from "./skills.js";
import type { SkillsOutput } from "./skills-action.js";

export interface SkillsCommandContext {
  service: SkillService;
  args: string[];
  options: SkillsCommandOptions;
  output: SkillsOutput;
  cwd: string;
  env: NodeJS.ProcessEnv;
}

type SkillsCommand = (context: SkillsCommandContext) => Promise<void> | void;

function print(context: SkillsCommandContext, json: unknown, text: string): void {
  context.output.stdout(
    context.options.json ? `${JSON.stringify(json)}\n` : text.endsWith("\n") ? text : `${text}\n`,
  );
}

function summary(skill: Skill, disabled: Set<string>) {
  return {
    name: skill.name,
    description: skill.description,
    source: skill.source,
    directory: skill.directory,
    enabled: !disabled.has(skill.name),
    allowedTools: skill.allowedTools,
    warnings: skill.warnings,
  };
}

function realOr(path: string): string {
  try {
    return realpathSync.native(path);
  } catch {
    return path;
  }
}

function findSkill(context: SkillsCommandContext, name: string): Skill {
  const skill = context.service.discover(context.cwd).skills.find((candidate) => candidate.name === name);
  if (!skill) throw new SkillError(`no skill named "${name}"; \`mercury skills list\` shows what was found`);
  return skill;
}

function listFiles(directory: string): { path: string; bytes: number }[] {
  const files: { path: string; bytes: number }[] = [];
  const walk = (folder: string, depth: number) => {
    if (depth > 4 || files.length >= 200) return;
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const path = join(folder, entry.name);
      if (entry.isDirectory() && entry.name !== ".git" && entry.name !== "node_modules")
        walk(path, depth + 1);
      else if (entry.isFile()) files.push({ path: relative(directory, path), bytes: statSync(path).size });
    }
  };
  walk(directory, 0);
  return files.sort((a, b) => a.path.localeCompare(b.path));
}

export const skillsCommands: Record<string, SkillsCommand> = {
  list(context) {
    const discovery = context.service.discover(context.cwd);
    const disabled = context.service.state.disabledNames();
    const workspace = context.service.trustedWorkspaceFor(context.cwd);
    const json = {
      skills: discovery.skills.map((skill) => ({
        ...summary(skill, disabled),
        record: context.service.state.record(skill.name),
      })),
      problems: discovery.problems,
      warnings: discovery.warnings,
      trustedWorkspace: workspace,
      pendingDrafts: context.service.drafts.list("pending").length,
    };
    const lines: string[] = [];
    if (discovery.skills.length === 0)
      lines.push(
        `No skills. Put one in ${context.service.mercuryRoot}/<name>/SKILL.md or run \`mercury skills install\`.`,
      );
    for (const skill of discovery.skills) {
      const record = context.service.state.record(skill.name);
      const flags = [disabled.has(skill.name) ? "disabled" : "", record.flagged ? "FAILING" : ""].filter(
        (flag) => flag !== "",
      );
      lines.push(
        `${skill.name}  [${skill.source}]${flags.length > 0 ? ` (${flags.join(", ")})` : ""}  ${skill.description.replace(/\s+/g, " ").slice(0, 100)}`,
      );
      for (const warning of skill.warnings) lines.push(`  warning: ${warning}`);
    }
    for (const problem of discovery.problems) lines.push(`not loaded: ${problem.file}: ${problem.reason}`);
    for (const warning of discovery.warnings) lines.push(`warning: ${warning}`);
    lines.push(
      workspace
        ? `Workspace skills are read from ${join(workspace, ".agents", "skills")} (trusted).`
        : "This workspace is not trusted: its .agents/skills are not read (`mercury skills trust` to allow).",
    );
    if (json.pendingDrafts > 0)
      lines.push(`${json.pendingDrafts} learned draft(s) wait for review: mercury skills review`);
    print(context, json, lines.join("\n"));
  },

  show(context) {
    const name = context.args[0] ?? "";
    const skill = findSkill(context, name);
    const disabled = context.service.state.disabledNames();
    const record = context.service.state.record(name);
    const uses = context.service.state.usesOf(name);
    const versions = context.service.state.versions(name).map(({ version, reason, created_at, content }) => ({
      version,
      reason,
      createdAt: created_at,
      removed: content === null,
    }));
    const files = listFiles(skill.directory);
    const json = {
      skill: {
        ...summary(skill, disabled),
        license: skill.license ?? null,
        compatibility: skill.compatibility ?? null,
        metadata: skill.metadata,
        file: skill.file,
      },
      files,
      record,
      uses,
      versions,
    };
    const lines = [
      `${skill.name} [${skill.source}]${disabled.has(name) ? " (disabled)" : ""}`,
      `  ${skill.description}`,
      `  file: ${skill.file}`,
      ...(skill.license ? [`  license: ${skill.license}`] : []),
      ...(skill.compatibility ? [`  compatibility: ${skill.compatibility}`] : []),
      ...(skill.allowedTools ? [`  allowed-tools (narrows only): ${skill.allowedTools.join(" ")}`] : []),
      ...skill.warnings.map((warning) => `  warning: ${warning}`),
      `  files: ${files.map((file) => `${file.path} (${file.bytes} B)`).join(", ")}`,
      `  uses: ${record.uses} (completed ${record.completed}, failed ${record.failed})${record.flagged ? " — FAILING: 3 or more of the last 5 uses failed" : ""}`,
      ...uses.slice(0, 5).map((use) => `    ${use.used_at} task ${use.task_id}: ${use.outcome ?? "running"}`),
      ...(versions.length > 0
        ? [
            "  versions:",
            ...versions.map(
              (v) => `    v${v.version} ${v.createdAt} ${v.reason}${v.removed ? " (removed)" : ""}`,
            ),
          ]
        : []),
    ];
    print(context, json, lines.join("\n"));
  },

  enable(context) {
    const name = context.args[0] ?? "";
    findSkill(context, name);
    const changed = context.service.state.setDisabled(name, false);
    print(
      context,
      { name, enabled: true, changed },
      changed ? `Enabled ${name}.` : `${name} was not disabled.`,
    );
  },

  disable(context) {
    const name = context.args[0] ?? "";
    findSkill(context, name);
    const changed = context.service.state.setDisabled(name, true);
    print(
      context,
      { name, enabled: false, changed },
      changed ? `Disabled ${name}: it is no longer offered to the agent.` : `${name} was already disabled.`,
    );
  },

  remove(context) {
    const name = context.args[0] ?? "";
    const version = context.service.remove(name);
    print(
      context,
      { name, removed: true, version },
      `Removed ${name} (recorded as version ${version}; \`mercury skills revert ${name} ${version - 1}\` restores it).`,
    );
  },

  approve(context) {
    const name = context.args[0] ?? "";
    const directory = context.service.approveOnDisk(name);
    print(
      context,
      { name, directory, approved: true },
      `Approved ${name} as it is now in ${directory}; a later change outside Mercury needs your approval again.`,
    );
  },

  trust(context) {
    const workspace = realOr(context.args[0] ?? context.cwd);
    context.service.state.trust(workspace, "owner");
    print(
      context,
      { workspace, trusted: true },
      `Trusted ${workspace}: skills in ${join(workspace, ".agents", "skills")} are now read. Untrust with \`mercury skills untrust\`.`,
    );
  },

  untrust(context) {
    const workspace = realOr(context.args[0] ?? context.cwd);
    const changed = context.service.state.untrust(workspace);
    if (!changed)
      throw new SkillError(
        `${workspace} was not trusted; trusted workspaces: ${context.service.state.trustedWorkspaces().join(", ") || "none"}`,
      );
    print(
      context,
      { workspace, trusted: false },
      `${workspace} is no longer trusted; its skills are not read.`,
    );
  },

  review(context) {
    const [action, rawId] = context.args;
    if (action === undefined) {
      const drafts = context.service.drafts.list("pending");
      const lines = drafts.length === 0 ? ["No drafts waiting for review."] : [];
      for (const draft of drafts) {
        lines.push(
          `draft ${draft.id}: ${draft.kind} skill "${draft.name}" (from task ${draft.evidence.taskId}, ${draft.evidence.outcome})`,
          `  why: ${draft.evidence.reason}`,
          `  verified by: ${draft.evidence.verification.map((v) => `${v.command} (exit ${v.exitCode})`).join("; ")}`,
          ...draft.diff.split("\n").map((line) => `  ${line}`),
          `  approve: mercury skills review approve ${draft.id}   reject: mercury skills review reject ${draft.id}`,
        );
      }
      print(context, { drafts }, lines.join("\n"));
      return;
    }
    if (action !== "approve" && action !== "reject")
      throw new SkillError(`unknown review action "${action}": use approve or reject`, true);
    const id = Number(rawId);
    if (!Number.isInteger(id) || id <= 0)
      throw new SkillError(`"${rawId ?? ""}" is not a draft id; \`mercury skills review\` lists them`, true);
    const draft =
      action === "approve" ? context.service.approve(id, "owner") : context.service.reject(id, "owner");
    print(
      context,
      { draft },
      action === "approve"
        ? `Approved draft ${id}: skill "${draft.name}" written to ${context.service.skillFile(draft.name)}.`
        : `Rejected draft ${id}; nothing was written.`,
    );
  },

  revert(context) {
    const [name = "", rawVersion] = context.args;
    const version = Number(rawVersion);
    if (!Number.isInteger(version) || version <= 0)
      throw new SkillError(`"${rawVersion ?? ""}" is not a version number`, true);
    const created = context.service.revert(name, version);
    print(
      context,
      { name, revertedTo: version, version: created },
      `Reverted ${name} to version ${version} (now version ${created}).`,
    );
  },

  async install(context) {
    const { installCommand } = await import("./skills-install.js");
    await installCommand(context);
  },
};

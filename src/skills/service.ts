import {
  existsSync,
  mkdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { dirname, join } from "node:path";
import type { Clock } from "../agent/clock.js";
import { describeRun, type OutputVerdict, passed } from "../agent/completion/test-summary.js";
import { yamlLibrary } from "../config/yaml.js";
import { isWithin } from "../permissions/context.js";
import type { SqliteDatabase } from "../storage/database.js";
import type { AnyTool } from "../tools/types.js";
import { createActivateSkillTool } from "./activate-tool.js";
import { catalogueSection } from "./catalogue.js";
import { lineDiff } from "./diff.js";
import { type Discovery, discoverSkills, type SkillRoot } from "./discover.js";
import { DraftStore, type SkillDraft } from "./drafts.js";
import {
  homeUnpinnedReason,
  skillFolderFingerprint,
  skillPinKey,
  unpinnedReason,
  workspaceSkillPins,
} from "./pins.js";
import { createProposeSkillTool, type SkillProposal } from "./propose-tool.js";
import { SkillSession } from "./session.js";
import { type HomeSkillSource, SkillState } from "./state.js";
import { isValidSkillName, type Skill } from "./types.js";

export class SkillError extends Error {
  override name = "SkillError";
  /** True for bad input (exit 2) rather than a failed action (exit 1). */
  constructor(
    message: string,
    readonly usage = false,
  ) {
    super(message);
  }
}

export interface SkillServiceOptions {
  /** MERCURY_HOME: skills live in its `skills/` folder. */
  home: string;
  /** The user's home directory: `~/.agents/skills`. */
  userHome: string;
  database: SqliteDatabase;
  clock: Clock;
  catalogueTokens?: number;
}

export interface TaskEnd {
  taskId: string;
  userKey: string;
  outcome: string;
  /** `outputSays` as the gate recorded it: an exit 0 whose output counts failures is no pass. */
  verification: { command: string; exitCode: number | null; outputSays?: OutputVerdict | undefined }[];
}

/**
 * Skills for the rest of Mercury: discovery (with workspace trust and disabled skills), the prompt
 * catalogue, the per-task tools, the learning loop's drafts and every write to a skill (versioned).
 */
export class SkillService {
  readonly state: SkillState;
  readonly drafts: DraftStore;
  readonly mercuryRoot: string;
  readonly userRoot: string;
  private readonly proposals = new Map<string, SkillProposal[]>();

  constructor(private readonly options: SkillServiceOptions) {
    this.state = new SkillState(options.database, options.clock);
    this.drafts = new DraftStore(options.database, options.clock);
    this.mercuryRoot = join(options.home, "skills");
    this.userRoot = join(options.userHome, ".agents", "skills");
  }

  /** The nearest trusted folder at or above `cwd`, or null: only then are its `.agents/skills` read. */
  trustedWorkspaceFor(cwd: string): string | null {
    let current = realOr(cwd);
    for (;;) {
      if (this.state.isTrusted(current)) return current;
      const parent = dirname(current);
      if (parent === current) return null;
      current = parent;
    }
  }

  roots(cwd: string): SkillRoot[] {
    const roots: SkillRoot[] = [
      { source: "mercury", directory: this.mercuryRoot },
      { source: "user", directory: this.userRoot },
    ];
    const workspace = this.trustedWorkspaceFor(cwd);
    if (workspace) roots.unshift({ source: "workspace", directory: join(workspace, ".agents", "skills") });
    return roots;
  }

  /**
   * A trusted workspace's skills load only as the owner trusted them; a home skill (Mercury's or
   * `~/.agents/skills`) only as first seen or as Mercury last wrote it (pins.ts).
   */
  discover(cwd: string): Discovery {
    const workspace = this.trustedWorkspaceFor(cwd);
    const pins = workspace === null ? null : this.state.workspacePins(workspace);
    const home = {
      mercury: this.homePins("mercury", this.mercuryRoot),
      user: this.homePins("user", this.userRoot),
    };
    const added = new Set<HomeSkillSource>();
    const discovery = discoverSkills(this.roots(cwd), (root, file) => {
      if (root.source === "workspace")
        return workspace === null ? null : unpinnedReason(pins, root.directory, file, workspace);
      if (root.source !== "mercury" && root.source !== "user") return null;
      const verdict = homeUnpinnedReason(home[root.source], root.directory, file);
      if (verdict.added) added.add(root.source);
      return verdict.reason;
    });
    for (const source of added) this.state.setHomePins(source, home[source]);
    return discovery;
  }

  /** A home folder's pins; the first time (before pins were kept), everything there as it is now. */
  private homePins(source: HomeSkillSource, root: string): Record<string, string> {
    const pins = this.state.homePins(source);
    if (pins !== null) return pins;
    const found = workspaceSkillPins(root);
    this.state.setHomePins(source, found);
    return found;
  }

  /**
   * The person accepts a home skill as it is now on disk (`mercury skills approve <name>`): `key` is
   * its folder relative to `$MERCURY_HOME/skills` or `~/.agents/skills`. Returns where it was found.
   */
  approveOnDisk(key: string): string {
    for (const [source, root] of [
      ["mercury", this.mercuryRoot],
      ["user", this.userRoot],
    ] as const) {
      const file = join(root, key, "SKILL.md");
      if (key.split(/[\\/]/).includes("..") || !existsSync(file)) continue;
      this.state.pinHomeSkill(source, skillPinKey(root, file), skillFolderFingerprint(dirname(file)));
      return dirname(file);
    }
    throw new SkillError(`no skill folder "${key}" in ${this.mercuryRoot} or ${this.userRoot}`, true);
  }

  /** Mercury wrote (or removed) one of its own skills: the pin follows. */
  private repin(name: string): void {
    const file = this.skillFile(name);
    this.state.pinHomeSkill(
      "mercury",
      skillPinKey(this.mercuryRoot, file),
      existsSync(file) ? skillFolderFingerprint(dirname(file)) : null,
    );
  }

  /** Skills the model may use in `cwd`: discovered, not disabled. */
  available(cwd: string): Skill[] {
    const disabled = this.state.disabledNames();
    return this.discover(cwd).skills.filter((skill) => !disabled.has(skill.name));
  }

  promptSection(cwd: string): string {
    return catalogueSection(this.available(cwd), this.options.catalogueTokens);
  }

  /**
   * Folders the task may read without asking: the available skills' own folders. A skill folder
   * that is (or holds) the user's home or MERCURY_HOME — e.g. a linked folder pointing at `~` — is
   * left out: reading there asks as usual.
   */
  readRoots(cwd: string): string[] {
    const guarded = [realOr(this.options.userHome), realOr(this.options.home), "/"];
    return this.available(cwd)
      .map((skill) => skill.directory)
      .filter((directory) => !guarded.some((path) => path === directory || isWithin(path, directory)));
  }

  /**
   * The task's tools: the given ones guarded by the task's skill session (allowed-tools narrowing),
   * plus activate_skill (when any skill is available) and propose_skill (owner tasks only).
   */
  taskTools(base: readonly AnyTool[], task: { cwd: string; userKey: string; taskId?: string }): AnyTool[] {
    const skills = this.available(task.cwd);
    const names = [...base.map((tool) => tool.name), "activate_skill", "propose_skill"];
    const session = new SkillSession(names);
    // A skill activated earlier in this chat session still narrows: its body is still in the history.
    if (task.taskId !== undefined) {
      const earlier = new Set(this.state.activatedEarlierInSession(task.taskId));
      for (const skill of skills) if (earlier.has(skill.name)) session.activate(skill);
    }
    const extra: AnyTool[] = [];
    const activate = createActivateSkillTool({
      skills,
      session,
      recordUse: (skill, taskId) => this.state.recordUse(skill, taskId),
    });
    if (activate) extra.push(activate);
    if (task.userKey === "owner")
      extra.push(
        createProposeSkillTool((taskId, userKey, proposal) =>
          this.propose(task.cwd, taskId, userKey, proposal),
        ),
      );
    return session.guardAll([...base, ...extra]);
  }

  /** Records a proposal for the task's end (see finishTask); a refusal's text, or null. */
  propose(cwd: string, taskId: string, userKey: string, proposal: SkillProposal): string | null {
    if (userKey !== "owner") return "only the owner's tasks may propose skills";
    const existing = this.discover(cwd).skills.find((skill) => skill.name === proposal.name);
    if (existing && existing.source !== "mercury") {
      return `skill "${proposal.name}" lives in ${existing.directory} (${existing.source}); Mercury only edits skills in ${this.mercuryRoot}. Propose a different name.`;
    }
    const list = this.proposals.get(taskId) ?? [];
    list.push(proposal);
    this.proposals.set(taskId, list);
    return null;
  }

  /**
   * After a task: records the outcome for the skills it used, and turns its proposals into drafts
   * only when it ended completed with every verification passing (and at least one). Returns the
   * drafts made and, for proposals dropped, why.
   */
  finishTask(end: TaskEnd): { drafts: SkillDraft[]; dropped: string | null; flagged: string[] } {
    const used = this.state.recordOutcome(end.taskId, end.outcome);
    const flagged = used.filter((skill) => this.state.record(skill).flagged);
    const proposals = this.proposals.get(end.taskId) ?? [];
    this.proposals.delete(end.taskId);
    if (proposals.length === 0) return { drafts: [], dropped: null, flagged };
    // The evidence gate's judgement, not the exit code alone: a `|| true` runner printing "1 failing"
    // exits 0, and a skill learned from that run would be learned from a failure.
    const verified = end.verification.length > 0 && end.verification.every(passed);
    if (end.outcome !== "completed" || !verified) {
      const why =
        end.outcome !== "completed"
          ? `the task ended ${end.outcome}`
          : end.verification.length === 0
            ? "the task completed without a verification command"
            : `a verification command failed (${end.verification
                .filter((record) => !passed(record))
                .map((record) => `\`${record.command}\` ${describeRun(record)}`)
                .join("; ")})`;
      return {
        drafts: [],
        dropped: `skill proposal(s) ${proposals.map((p) => p.name).join(", ")} dropped: ${why}; skills are only learned from verified successes`,
        flagged,
      };
    }
    const drafts = proposals.map((proposal) => {
      const content = renderSkillFile(proposal.name, proposal.description, proposal.instructions);
      const previous = this.currentContent(proposal.name);
      return this.drafts.add({
        name: proposal.name,
        kind: previous === null ? "new" : "edit",
        content,
        previous,
        diff: lineDiff(previous ?? "", content),
        evidence: {
          taskId: end.taskId,
          outcome: end.outcome,
          verification: end.verification,
          reason: proposal.reason,
          proposedBy: end.userKey,
        },
      });
    });
    return { drafts, dropped: null, flagged };
  }

  /** The SKILL.md text of a skill Mercury manages, or null when there is none. */
  currentContent(name: string): string | null {
    const file = this.skillFile(name);
    return existsSync(file) ? readFileSync(file, "utf8") : null;
  }

  /** `$MERCURY_HOME/skills/<name>/SKILL.md`, built only from a validated name. */
  skillFile(name: string): string {
    if (!isValidSkillName(name))
      throw new SkillError(`"${name}" is not a valid skill name (1–64 of a-z, 0-9 and single hyphens)`);
    return join(this.mercuryRoot, name, "SKILL.md");
  }

  approve(id: number, by: string): SkillDraft {
    const draft = this.pendingDraft(id);
    if (this.currentContent(draft.name) !== draft.previous) {
      throw new SkillError(
        `skill "${draft.name}" changed since draft ${id} was made; reject it and let Mercury propose again`,
      );
    }
    this.writeSkill(
      draft.name,
      draft.content,
      `approved draft ${id} (task ${draft.evidence.taskId}) by ${by}`,
    );
    this.drafts.settle(id, "approved", by);
    return this.drafts.get(id) as SkillDraft;
  }

  reject(id: number, by: string): SkillDraft {
    this.pendingDraft(id);
    this.drafts.settle(id, "rejected", by);
    return this.drafts.get(id) as SkillDraft;
  }

  private pendingDraft(id: number): SkillDraft {
    const draft = this.drafts.get(id);
    if (!draft) throw new SkillError(`no draft ${id}; \`mercury skills review\` lists the pending ones`);
    if (draft.status !== "pending")
      throw new SkillError(
        `draft ${id} is already ${draft.status}${draft.reviewedBy ? ` by ${draft.reviewedBy}` : ""}`,
      );
    return draft;
  }

  /** Writes a skill Mercury manages, keeping the previous text as a version first. */
  writeSkill(name: string, content: string, reason: string): number {
    const file = this.skillFile(name);
    const previous = this.currentContent(name);
    if (previous !== null && this.state.latestVersion(name)?.content !== previous) {
      this.state.addVersion(name, previous, "as found before Mercury changed it");
    }
    mkdirSync(dirname(file), { recursive: true });
    const temporary = `${file}.${process.pid}.tmp`;
    writeFileSync(temporary, content, { mode: 0o644 });
    renameSync(temporary, file);
    this.repin(name);
    return this.state.addVersion(name, content, reason);
  }

  /** Restores a recorded version (a removal when that version was one); itself a new version. */
  revert(name: string, version: number): number {
    const target = this.state.versions(name).find((entry) => entry.version === version);
    if (!target)
      throw new SkillError(
        `skill "${name}" has no version ${version}; \`mercury skills show ${name}\` lists them`,
      );
    if (target.content === null) return this.remove(name, `revert to version ${version}`);
    return this.writeSkill(name, target.content, `revert to version ${version}`);
  }

  /** Removes a skill Mercury manages (its folder), recording a version so it can be restored. */
  remove(name: string, reason = "removed"): number {
    const file = this.skillFile(name);
    const previous = this.currentContent(name);
    if (previous === null)
      throw new SkillError(
        `no skill "${name}" in ${this.mercuryRoot}; skills elsewhere are yours to delete (or \`mercury skills disable ${name}\`)`,
      );
    if (this.state.latestVersion(name)?.content !== previous)
      this.state.addVersion(name, previous, "as found before removal");
    rmSync(dirname(file), { recursive: true, force: true });
    this.repin(name);
    return this.state.addVersion(name, null, reason);
  }
}

export function renderSkillFile(name: string, description: string, body: string): string {
  return `---\n${yamlLibrary().stringify({ name, description }).trimEnd()}\n---\n\n${body.trim()}\n`;
}

function realOr(path: string): string {
  try {
    return realpathSync.native(path);
  } catch {
    return path;
  }
}

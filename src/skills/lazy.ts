import { existsSync, readdirSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import type { AnyTool } from "../tools/types.js";
import type { SkillService, SkillServiceOptions, TaskEnd } from "./service.js";

/**
 * The application's skills, with the skill service (discovery, parsing, state, drafts, tools: a dozen
 * modules) loaded only when a skill folder exists for the task or a skill is being worked on. With no
 * skill folder anywhere, a task's tools and prompt are what the service would give — `propose_skill`
 * for the owner, no catalogue, no `activate_skill` — and the service loads when `propose_skill` is
 * called or the task ends (recording outcomes and drafts), both after the first model request.
 */
export class LazySkills {
  private service: SkillService | null = null;
  private loading: Promise<SkillService> | null = null;
  readonly mercuryRoot: string;
  readonly userRoot: string;

  constructor(private readonly options: SkillServiceOptions) {
    this.mercuryRoot = join(options.home, "skills");
    this.userRoot = join(options.userHome, ".agents", "skills");
  }

  load(): Promise<SkillService> {
    this.loading ??= import("./service.js").then(({ SkillService }) => {
      this.service = new SkillService(this.options);
      return this.service;
    });
    return this.loading;
  }

  /**
   * False only when no folder a skill could be discovered in exists: the Mercury and user roots,
   * and `.agents/skills` in `cwd` or any folder above it (a superset of the trusted workspace the
   * service reads). A few stats; no parsing, no database.
   */
  mayHaveSkills(cwd: string): boolean {
    if (hasEntries(this.mercuryRoot) || hasEntries(this.userRoot)) return true;
    let current = resolve(cwd);
    for (;;) {
      if (hasEntries(join(current, ".agents", "skills"))) return true;
      const parent = dirname(current);
      if (parent === current) return false;
      current = parent;
    }
  }

  /** Loads the service when `cwd` may have skills, so the synchronous calls below see them. */
  async prepare(cwd: string): Promise<void> {
    if (this.service === null && this.mayHaveSkills(cwd)) await this.load();
  }

  promptSection(cwd: string): string {
    return this.service?.promptSection(cwd) ?? "";
  }

  readRoots(cwd: string): string[] {
    return this.service?.readRoots(cwd) ?? [];
  }

  async taskTools(
    base: readonly AnyTool[],
    task: { cwd: string; userKey: string; taskId?: string },
  ): Promise<AnyTool[]> {
    await this.prepare(task.cwd);
    if (this.service) return this.service.taskTools(base, task);
    // No skill anywhere: nothing to activate, so nothing can narrow the tools; only the proposal tool.
    if (task.userKey !== "owner") return [...base];
    const { createProposeSkillTool } = await import("./propose-tool.js");
    return [
      ...base,
      createProposeSkillTool(async (taskId, userKey, proposal) =>
        (await this.load()).propose(task.cwd, taskId, userKey, proposal),
      ),
    ];
  }

  async finishTask(end: TaskEnd): Promise<ReturnType<SkillService["finishTask"]>> {
    // Never loaded: no proposal was made (propose_skill loads it) and no skill was activated in this
    // process; only a resumed task can have uses recorded earlier, and then the service records them.
    if (this.service === null && !this.hasUses(end.taskId)) return { drafts: [], dropped: null, flagged: [] };
    return (await this.load()).finishTask(end);
  }

  private hasUses(taskId: string): boolean {
    return (
      this.options.database.prepare("SELECT 1 FROM skill_uses WHERE task_id = ? LIMIT 1").get(taskId) !==
      undefined
    );
  }
}

function hasEntries(directory: string): boolean {
  if (!existsSync(directory)) return false;
  try {
    return readdirSync(directory).length > 0;
  } catch {
    // Unreadable: let the service's discovery decide (and report) as before.
    return true;
  }
}

import { mkdirSync, mkdtempSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { validateWorkspace } from "../../src/scheduler/authorization.js";
import { JobStore } from "../../src/scheduler/jobs.js";
import { schedulerTools } from "../../src/scheduler/tools.js";
import { openMemoryDatabase } from "../../src/storage/database.js";
import type { ToolContext } from "../../src/tools/types.js";

function setup() {
  const root = mkdtempSync(join(tmpdir(), "mercury-tools-"));
  const userHome = join(root, "home");
  const project = join(userHome, "project");
  mkdirSync(project, { recursive: true });
  const database = openMemoryDatabase();
  const clock = { now: () => new Date("2026-06-01T08:00:00Z") };
  const tools = schedulerTools({ database, clock, mercuryHome: join(root, "mercury"), userHome });
  const byName = (name: string) => {
    const tool = tools.find((entry) => entry.name === name);
    if (!tool) throw new Error(name);
    return tool;
  };
  const questions: string[] = [];
  const context = (overrides: Partial<ToolContext> = {}): ToolContext => ({
    signal: new AbortController().signal,
    cwd: project,
    sessionId: "s",
    taskId: "t1",
    userKey: "owner",
    home: join(root, "mercury"),
    authorize: async () => ({ allowed: true, rule: "test" }),
    reportActivity: () => undefined,
    askUser: async (question) => {
      questions.push(question);
      return "yes";
    },
    ...overrides,
  });
  return {
    root,
    userHome,
    project,
    database,
    store: new JobStore(database, clock),
    byName,
    context,
    questions,
  };
}

describe("schedule tools", () => {
  it("creating a job always asks the user; without anyone to ask it is refused", async () => {
    const s = setup();
    const input = { schedule: "every 30 minutes", task: "check the disk" };
    const created = await s.byName("schedule_task").execute(input, s.context());
    expect(created.ok).toBe(true);
    expect(s.questions[0]).toMatch(/Create this scheduled job\?/);
    const { askUser: _none, ...unattended } = s.context();
    const refused = await s.byName("schedule_task").execute(input, unattended);
    expect(refused).toMatchObject({ ok: false, error: expect.stringContaining("nobody can answer here") });
    const declined = await s.byName("schedule_task").execute(input, s.context({ askUser: async () => "no" }));
    expect(declined).toMatchObject({ ok: false, error: expect.stringContaining("did not confirm") });
    expect(s.store.list()).toHaveLength(1);
  });

  it("someone other than the owner cannot send a job's results to another chat or cancel others' jobs", async () => {
    const s = setup();
    const member = s.context({ userKey: "telegram:77" });
    const result = await s
      .byName("schedule_task")
      .execute({ schedule: "every 30 minutes", task: "spam", delivery: "telegram:4242" }, member);
    expect(result).toMatchObject({ ok: false, error: expect.stringContaining("can only go to this chat") });
    await s.byName("schedule_task").execute({ schedule: "every 30 minutes", task: "mine" }, s.context());
    const [job] = s.store.list();
    const cancel = await s.byName("cancel_scheduled_task").execute({ id: job?.id }, member);
    expect(cancel).toMatchObject({ ok: false, error: expect.stringContaining("of yours") });
    expect(s.store.list()[0]?.status).toBe("active");
  });

  it("a job's workspace is never the home directory, an ancestor of it, or a symlink to it", () => {
    const s = setup();
    const link = join(s.root, "sneaky");
    symlinkSync(s.userHome, link);
    expect(() => validateWorkspace(s.userHome, s.userHome, join(s.root, "mercury"))).toThrow(
      /home directory/,
    );
    expect(() => validateWorkspace("/", s.userHome, join(s.root, "mercury"))).toThrow(/home directory/);
    expect(() => validateWorkspace(link, s.userHome, join(s.root, "mercury"))).toThrow(/home directory/);
    expect(() => validateWorkspace("relative/dir", s.userHome, join(s.root, "mercury"))).toThrow(/absolute/);
    expect(() => validateWorkspace(join(s.root, "missing"), s.userHome, join(s.root, "mercury"))).toThrow(
      /does not exist/,
    );
    expect(validateWorkspace(s.project, s.userHome, join(s.root, "mercury"))).toBe(s.project);
  });
});

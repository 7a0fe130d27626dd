import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { systemClock } from "../../src/agent/clock.js";
import { SkillService } from "../../src/skills/service.js";
import { openMemoryDatabase } from "../../src/storage/database.js";
import { tempRoot } from "../skills/helpers.js";

async function serviceWithProposal(taskId: string) {
  const root = tempRoot();
  const service = new SkillService({
    home: join(root, "home"),
    userHome: join(root, "user"),
    database: openMemoryDatabase(),
    clock: systemClock,
  });
  const tools = await service.taskTools([], { cwd: root, userKey: "owner" });
  const propose = tools.find((tool) => tool.name === "propose_skill");
  const context = {
    signal: new AbortController().signal,
    cwd: root,
    sessionId: "s",
    taskId,
    userKey: "owner",
    home: root,
    authorize: async () => ({ allowed: true as const, rule: "x" }),
    reportActivity: () => undefined,
  };
  const proposed = await propose?.execute(
    { name: "tidy", description: "Tidy files.", instructions: "sort them", reason: "worked" },
    context,
  );
  expect(proposed).toMatchObject({ ok: true });
  return service;
}

describe("skill drafts are learned only from runs the evidence gate calls passed", () => {
  it("an exit 0 whose output reports failures is no verified success: the proposal is dropped", async () => {
    const service = await serviceWithProposal("t1");
    const learned = service.finishTask({
      taskId: "t1",
      userKey: "owner",
      outcome: "completed",
      verification: [
        { command: "npm test", exitCode: 0, outputSays: "failures" },
        { command: "npm test", exitCode: 0 },
      ],
    });
    expect(learned.drafts).toEqual([]);
    expect(learned.dropped).toBe(
      "skill proposal(s) tidy dropped: a verification command failed (`npm test` exited 0 but its output reports failures); skills are only learned from verified successes",
    );
    expect(service.drafts.list()).toEqual([]);
  });

  it("an exit 0 that ran no tests is no verified success either", async () => {
    const service = await serviceWithProposal("t2");
    const learned = service.finishTask({
      taskId: "t2",
      userKey: "owner",
      outcome: "completed",
      verification: [{ command: "npm test", exitCode: 0, outputSays: "no tests" }],
    });
    expect(learned.drafts).toEqual([]);
    expect(learned.dropped).toContain("`npm test` exited 0 but ran no tests");
  });

  it("runs that passed still make a draft", async () => {
    const service = await serviceWithProposal("t3");
    const learned = service.finishTask({
      taskId: "t3",
      userKey: "owner",
      outcome: "completed",
      verification: [{ command: "npm test", exitCode: 0 }],
    });
    expect(learned.drafts.map((draft) => draft.name)).toEqual(["tidy"]);
    expect(learned.dropped).toBeNull();
  });
});

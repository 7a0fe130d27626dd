import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { systemClock } from "../../src/agent/clock.js";
import { SkillService } from "../../src/skills/service.js";
import { skillsSlashCommand } from "../../src/skills/slash-command.js";
import { openMemoryDatabase } from "../../src/storage/database.js";
import { tempRoot } from "./helpers.js";

describe("/skills review in chat", () => {
  it("shows a pending draft with its diff and evidence, and approves it", async () => {
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
      taskId: "t1",
      userKey: "owner",
      home: root,
      authorize: async () => ({ allowed: true as const, rule: "x" }),
      reportActivity: () => undefined,
    };
    expect(
      await propose?.execute(
        { name: "tidy", description: "Tidy files.", instructions: "sort them", reason: "worked" },
        context,
      ),
    ).toMatchObject({ ok: true });
    service.finishTask({
      taskId: "t1",
      userKey: "owner",
      outcome: "completed",
      verification: [{ command: "npm test", exitCode: 0 }],
    });
    const review = skillsSlashCommand(service, "review", root).join("\n");
    expect(review).toContain(
      'draft 1: new skill "tidy" from task t1 (completed; verified by npm test exit 0)',
    );
    expect(review).toContain("+sort them");
    expect(skillsSlashCommand(service, "review approve 1", root)).toEqual([
      'Approved draft 1: skill "tidy" is now available.',
    ]);
    expect(skillsSlashCommand(service, "", root)[0]).toContain("tidy [mercury]");
    expect(skillsSlashCommand(service, "review approve 1", root)[0]).toContain("already approved");
  });
});

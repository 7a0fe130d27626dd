import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { systemClock } from "../../src/agent/clock.js";
import { LazySkills } from "../../src/skills/lazy.js";
import { SkillService } from "../../src/skills/service.js";
import { openMemoryDatabase } from "../../src/storage/database.js";
import type { AnyTool } from "../../src/tools/types.js";
import { fakeContext } from "../tools/helpers.js";
import { skillMd, tempRoot, writeFiles } from "./helpers.js";

function setup() {
  const root = tempRoot();
  const options = {
    home: join(root, "mercury"),
    userHome: join(root, "user"),
    database: openMemoryDatabase(),
    clock: systemClock,
  };
  return { root, workspace: join(root, "workspace", "sub"), options };
}

const names = (tools: readonly AnyTool[]) => tools.map((tool) => tool.name);

describe("LazySkills gives a task what SkillService gives it", () => {
  it("no skill folder: propose_skill for the owner only, no catalogue, and a proposal still becomes a draft", async () => {
    const { workspace, options } = setup();
    writeFiles(workspace, { "README.md": "x" });
    const lazy = new LazySkills(options);
    const eager = new SkillService(options);
    expect(lazy.mayHaveSkills(workspace)).toBe(false);
    for (const userKey of ["owner", "telegram:1"]) {
      const task = { cwd: workspace, userKey };
      expect(names(await lazy.taskTools([], task))).toEqual(names(eager.taskTools([], task)));
    }
    await lazy.prepare(workspace);
    expect(lazy.promptSection(workspace)).toBe(eager.promptSection(workspace));
    expect(lazy.readRoots(workspace)).toEqual([]);
    // Nothing proposed, no recorded use: nothing to learn, as the service would say.
    expect(
      await lazy.finishTask({ taskId: "t0", userKey: "owner", outcome: "completed", verification: [] }),
    ).toEqual({ drafts: [], dropped: null, flagged: [] });

    const [propose] = (await lazy.taskTools([], { cwd: workspace, userKey: "owner" })).filter(
      (tool) => tool.name === "propose_skill",
    );
    const context = fakeContext({ cwd: workspace, home: options.userHome }, "allow", { taskId: "t1" });
    const proposed = await propose?.execute(
      { name: "add-line", description: "Adds a line.", instructions: "Append it.", reason: "it worked" },
      context,
    );
    expect(proposed).toMatchObject({ ok: true });
    const learned = await lazy.finishTask({
      taskId: "t1",
      userKey: "owner",
      outcome: "completed",
      verification: [{ command: "npm test", exitCode: 0 }],
    });
    expect(learned.drafts.map((draft) => [draft.name, draft.kind])).toEqual([["add-line", "new"]]);
  });

  it("a skill in a trusted workspace above cwd is listed and offered; an untrusted one is not", async () => {
    const { root, workspace, options } = setup();
    writeFiles(join(root, "workspace"), {
      ".agents/skills/release/SKILL.md": skillMd("release", "Cuts a release."),
    });
    const lazy = new LazySkills(options);
    const eager = new SkillService(options);
    expect(lazy.mayHaveSkills(workspace)).toBe(true);
    const task = { cwd: workspace, userKey: "owner" };
    expect(names(await lazy.taskTools([], task))).toEqual(["propose_skill"]);
    expect(lazy.promptSection(workspace)).toBe("");

    eager.state.trust(join(root, "workspace"), "owner");
    expect(names(await lazy.taskTools([], task))).toEqual(names(eager.taskTools([], task)));
    expect(names(await lazy.taskTools([], task))).toEqual(["activate_skill", "propose_skill"]);
    expect(lazy.promptSection(workspace)).toBe(eager.promptSection(workspace));
    expect(lazy.promptSection(workspace)).toContain("- release: Cuts a release.");
    expect(lazy.readRoots(workspace)).toEqual(eager.readRoots(workspace));
  });
});

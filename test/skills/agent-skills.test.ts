import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { compactToolResults } from "../../src/agent/completion/compaction.js";
import { keptWholeTexts, summaryMessage } from "../../src/agent/completion/summarize.js";
import type { StoredMessage } from "../../src/storage/transcripts.js";
import { skillMd, skillsAgent, writeFiles } from "./helpers.js";

const call = (name: string, input: Record<string, unknown>) => ({ toolCalls: [{ name, input }] });
const toolResults = (events: ReturnType<typeof skillsAgent>["events"]) =>
  events.flatMap((event) => (event.type === "tool-result" ? [event] : []));

describe("skills in a task (real agent, real permission engine)", () => {
  it("the catalogue is in the system prompt and activate_skill returns the body; reads in the skill folder do not ask", async () => {
    const harness = skillsAgent({ replies: [] });
    writeFiles(join(harness.home, "skills"), {
      "release/SKILL.md": skillMd(
        "release",
        "Cut a release of this project.",
        "",
        "1. Read references/steps.md\n2. Tag it.",
      ),
      "release/references/steps.md": "bump the version\n",
    });
    const stepsFile = join(harness.home, "skills", "release", "references", "steps.md");
    harness.model.push(call("activate_skill", { name: "release" }));
    harness.model.push(call("read_file", { path: stepsFile }));
    harness.model.push({ text: "Ready." });
    const report = await harness.run("make a release");
    expect(report.outcome).toBe("responded");
    expect(harness.prompts[0]).toContain("- release: Cut a release of this project.");
    const [activated, read] = toolResults(harness.events);
    expect(activated?.ok).toBe(true);
    expect(JSON.stringify(harness.model.requests[1]?.prompt)).toContain("2. Tag it.");
    expect(read?.ok).toBe(true);
    expect(JSON.stringify(harness.model.requests[2]?.prompt)).toContain("bump the version");
    // activate_skill's parameter is an enum of the available names.
    const tools = JSON.stringify(harness.model.requests[0]?.tools);
    expect(tools).toContain('"enum":["release"]');
    expect(harness.skills.state.usesOf("release")).toMatchObject([
      { task_id: report.taskId, outcome: "responded" },
    ]);
  });

  it("allowed-tools only narrows: listing run_command does not make a command auto-approved, and other tools are refused", async () => {
    const harness = skillsAgent({ replies: [], mode: "refuse" });
    writeFiles(join(harness.home, "skills"), {
      "shell-helper/SKILL.md": skillMd(
        "shell-helper",
        "Runs shell commands.",
        "allowed-tools: Bash(*) run_command\n",
      ),
    });
    harness.model.push(call("activate_skill", { name: "shell-helper" }));
    harness.model.push(call("run_command", { command: "touch created-by-skill.txt" }));
    harness.model.push(call("write_file", { path: "x.txt", content: "x" }));
    harness.model.push({ text: "Could not." });
    await harness.run("do it");
    const results = toolResults(harness.events);
    expect(results[1]).toMatchObject({ ok: false });
    expect(JSON.stringify(results[1])).toContain("needs approval");
    expect(existsSync(join(harness.workspace, "created-by-skill.txt"))).toBe(false);
    expect(results[2]).toMatchObject({ ok: false });
    expect(JSON.stringify(results[2])).toContain("not available while the skill(s) shell-helper are active");
    expect(existsSync(join(harness.workspace, "x.txt"))).toBe(false);
  });

  it("activating a second skill never widens what the first one narrowed", async () => {
    const harness = skillsAgent({ replies: [], mode: "refuse" });
    writeFiles(join(harness.home, "skills"), {
      "reader/SKILL.md": skillMd("reader", "Reads.", "allowed-tools: read_file\n"),
      "writer/SKILL.md": skillMd("writer", "Writes.", "allowed-tools: write_file read_file\n"),
    });
    harness.model.push(call("activate_skill", { name: "reader" }));
    harness.model.push(call("activate_skill", { name: "writer" }));
    harness.model.push(call("write_file", { path: "y.txt", content: "y" }));
    harness.model.push({ text: "ok" });
    await harness.run("go");
    expect(toolResults(harness.events)[2]).toMatchObject({ ok: false });
    expect(existsSync(join(harness.workspace, "y.txt"))).toBe(false);
  });

  it("activated skill text survives compaction and summaries", () => {
    const big = `SKILL-START ${"x".repeat(10_000)} SKILL-MIDDLE ${"x".repeat(10_000)} SKILL-END`;
    const toolMessage = (toolName: string, value: string): StoredMessage => ({
      id: 1,
      taskId: "t",
      tokenEstimate: value.length / 4,
      message: {
        role: "tool",
        content: [{ type: "tool-result", toolCallId: "c", toolName, output: { type: "text", value } }],
      },
    });
    const history = [
      toolMessage("activate_skill", big),
      toolMessage("read_file", big),
      ...Array.from({ length: 10 }, () => toolMessage("list_dir", "small")),
    ];
    expect(compactToolResults(history)).toBe(1);
    expect(JSON.stringify(history[0])).toContain("SKILL-MIDDLE");
    expect(JSON.stringify(history[1])).not.toContain("SKILL-MIDDLE");
    const summary = summaryMessage("older work", 2, keptWholeTexts(history.slice(0, 2)));
    expect(JSON.stringify(summary.message)).toContain("SKILL-MIDDLE");
  });
});

describe("governed learning loop (scripted model, real agent)", () => {
  const project = (harness: ReturnType<typeof skillsAgent>) =>
    writeFiles(harness.workspace, {
      "package.json": JSON.stringify({
        name: "demo",
        version: "1.0.0",
        scripts: { test: 'node -e "process.exit(0)"' },
      }),
    });
  const proposal = {
    name: "add-line",
    description: "Add a line to a text file and verify with npm test.",
    instructions: "1. edit the file\n2. run npm test",
    reason: "it worked: npm test passed",
  };

  it("draft → review → approve → use; the draft is never offered before approval", async () => {
    const harness = skillsAgent({ replies: [], mode: "ask" });
    project(harness);
    harness.model.push(call("write_file", { path: "a.txt", content: "one\n" }));
    harness.model.push({ toolCalls: [{ name: "run_command", input: { command: "npm test" } }] });
    harness.model.push(call("propose_skill", proposal));
    harness.model.push({ text: "Done; tests pass." });
    // npm test needs approval in ask mode: the owner approves it when asked.
    harness.bus.subscribe((event) => {
      if (event.type === "approval-request")
        queueMicrotask(() => harness.broker.answer(event.approvalId, "once", "owner"));
    });
    const report = await harness.run("add a line to a.txt");
    expect(report.outcome).toBe("completed");
    expect(report.verification).toEqual([{ command: "npm test", exitCode: 0 }]);
    const [draft] = harness.skills.drafts.list("pending");
    expect(draft).toMatchObject({
      name: "add-line",
      kind: "new",
      evidence: {
        taskId: report.taskId,
        outcome: "completed",
        verification: [{ command: "npm test", exitCode: 0 }],
      },
    });
    expect(draft?.diff).toContain("+name: add-line");
    // Not used before approval: not on disk, not in the catalogue.
    expect(harness.skills.available(harness.workspace).map((skill) => skill.name)).toEqual([]);
    harness.skills.approve(draft?.id ?? 0, "owner");
    expect(readFileSync(join(harness.home, "skills", "add-line", "SKILL.md"), "utf8")).toContain(
      "2. run npm test",
    );
    // Used: the next task sees it in the catalogue and can activate it.
    harness.model.push(call("activate_skill", { name: "add-line" }));
    harness.model.push({ text: "ok" });
    const next = await harness.run("again");
    expect(harness.prompts.at(-1)).toContain("- add-line: Add a line");
    expect(harness.skills.state.usesOf("add-line")).toMatchObject([{ task_id: next.taskId }]);
    // Every change is versioned and revertible.
    harness.skills.writeSkill("add-line", "---\nname: add-line\ndescription: changed\n---\nnew\n", "edit");
    harness.skills.revert("add-line", 1);
    expect(readFileSync(join(harness.home, "skills", "add-line", "SKILL.md"), "utf8")).toContain(
      "2. run npm test",
    );
    expect(harness.skills.state.versions("add-line").map((version) => version.version)).toEqual([1, 2, 3]);
  });

  it("a failed task and an unverified one never produce a draft", async () => {
    const harness = skillsAgent({ replies: [], mode: "refuse" });
    harness.model.push(call("propose_skill", proposal));
    harness.model.push({ text: "I just chatted." });
    await harness.run("talk");
    harness.model.push(call("propose_skill", proposal));
    harness.model.push(call("write_file", { path: "b.txt", content: "b" }));
    harness.model.push({ text: "Done." });
    await harness.run("write b without a project to verify");
    harness.model.push(call("propose_skill", proposal));
    harness.model.push({ error: { status: 400, message: "bad request" } });
    const failed = await harness.run("fail");
    expect(failed.outcome).toBe("failed");
    expect(harness.skills.drafts.list()).toEqual([]);
    const notices = harness.events.flatMap((event) => (event.type === "notice" ? [event.message] : []));
    expect(notices.filter((message) => message.includes("dropped")).length).toBe(3);
  });

  it("a skill whose tasks keep failing is flagged", () => {
    const harness = skillsAgent({ replies: [] });
    for (let index = 0; index < 4; index++) {
      harness.skills.state.recordUse("flaky", `t${index}`);
      harness.skills.state.recordOutcome(`t${index}`, index === 0 ? "completed" : "failed");
    }
    expect(harness.skills.state.record("flaky")).toMatchObject({
      uses: 4,
      completed: 1,
      failed: 3,
      flagged: true,
    });
  });
});

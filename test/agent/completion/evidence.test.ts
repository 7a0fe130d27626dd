import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { banner } from "../../../src/channels/cli/renderer.js";
import { createHarness } from "../../helpers/agent-harness.js";
import {
  failScript,
  makeProject,
  packageJson,
  passScript,
  realTools,
  refuseCommands,
  taskEnd,
} from "./fixtures.js";

const write = (path: string, content: string) => ({
  toolCalls: [{ name: "write_file", input: { path, content } }],
});
const run = (command: string, timeoutMs?: number) => ({
  toolCalls: [{ name: "run_command", input: { command, ...(timeoutMs ? { timeoutMs } : {}) } }],
});
const runCalls = (harness: ReturnType<typeof createHarness>) =>
  harness.events.filter((event) => event.type === "tool-call" && event.toolName === "run_command");

describe("evidence gate (real git repos, real npm test)", () => {
  it("a failing npm test is never completed: fix rounds, then failed, and the banner shows ✗ npm test (exit 1)", async () => {
    const cwd = makeProject({ "package.json": packageJson(failScript), "src/a.js": "one\n" }, { git: true });
    const harness = createHarness({
      tools: realTools(),
      replies: [
        [write("src/a.js", "one\ntwo\n"), { text: "Done, all good." }, { text: "Fixed." }, { text: "Done." }],
      ],
    });
    const report = await harness.run("add a line", { cwd });
    expect(report.outcome).toBe("failed");
    expect(report.reason).toContain("npm test");
    expect(report.verification).toEqual([{ command: "npm test", exitCode: 1 }]);
    expect(report.filesChanged).toEqual([{ path: "src/a.js", added: 1, removed: 0 }]);
    const prompt = JSON.stringify(harness.models[0]?.requests[2]?.prompt);
    expect(prompt).toContain("1 test failed: adds numbers");
    const text = banner(taskEnd(harness.events), false);
    expect(text).toContain("✗ npm test (exit 1)");
    expect(text).toContain("src/a.js +1 −0");
    // The user's repository state is untouched: nothing staged, HEAD unchanged.
    expect(execFileSync("git", ["diff", "--cached", "--name-only"], { cwd }).toString()).toBe("");
    expect(execFileSync("git", ["status", "--porcelain"], { cwd }).toString()).toContain(" M src/a.js");
  });

  it("completes when the model's own npm test exited 0 after the last change (no second run)", async () => {
    const cwd = makeProject({ "package.json": packageJson(passScript), "a.txt": "x\ny\nz\n" }, { git: true });
    const harness = createHarness({
      tools: realTools(),
      replies: [[write("a.txt", "x\nY\nz\n"), run("npm test"), { text: "Done, tests pass." }]],
    });
    const report = await harness.run("change y", { cwd });
    expect(report).toMatchObject({ outcome: "completed", endCause: "text-stop" });
    expect(report.verification).toEqual([{ command: "npm test", exitCode: 0 }]);
    expect(report.filesChanged).toEqual([{ path: "a.txt", added: 1, removed: 1 }]);
    expect(runCalls(harness)).toHaveLength(1);
    expect(banner(taskEnd(harness.events), false)).toContain("✓ npm test (exit 0)");
  });

  it("a test run before the last change is not evidence: the agent runs the verification itself", async () => {
    const cwd = makeProject({ "package.json": packageJson(passScript) }, { git: true });
    const harness = createHarness({
      tools: realTools(),
      replies: [[run("npm run test"), write("new.txt", "a\nb\n"), { text: "Done." }]],
    });
    const report = await harness.run("add new.txt", { cwd });
    expect(report.outcome).toBe("completed");
    expect(report.verification).toEqual([
      { command: "npm test", exitCode: 0 },
      { command: "npm test", exitCode: 0 },
    ]);
    expect(runCalls(harness)).toHaveLength(2);
    expect(report.filesChanged).toEqual([{ path: "new.txt", added: 2, removed: 0 }]);
  });

  it("counts only the task's own changes in an already dirty tree", async () => {
    const cwd = makeProject({ "package.json": packageJson(passScript), "f.txt": "1\n2\n3\n" }, { git: true });
    writeFileSync(join(cwd, "f.txt"), "1\n2\n3\n4\n"); // dirty before the task
    writeFileSync(join(cwd, "untracked.txt"), "u\n");
    const harness = createHarness({
      tools: realTools(),
      replies: [[write("f.txt", "1\n3\n4\n"), { text: "Removed 2." }]],
    });
    const report = await harness.run("remove line 2", { cwd });
    expect(report.filesChanged).toEqual([{ path: "f.txt", added: 0, removed: 1 }]);
    expect(report.outcome).toBe("completed");
    expect(readFileSync(join(cwd, "f.txt"), "utf8")).toBe("1\n3\n4\n");
  });

  it("the verification command run in another directory is not evidence for this one", async () => {
    const cwd = makeProject({ "package.json": packageJson(failScript) }, { git: true });
    const elsewhere = makeProject({ "package.json": packageJson(passScript) });
    const harness = createHarness({
      tools: realTools(),
      replies: [
        [
          write("x.txt", "x\n"),
          { toolCalls: [{ name: "run_command", input: { command: "npm test", cwd: elsewhere } }] },
          { text: "Done, tests pass." },
          { text: "Done." },
          { text: "Done." },
        ],
      ],
    });
    const report = await harness.run("make x", { cwd });
    expect(report.outcome).toBe("failed");
    expect(report.verification).toEqual([{ command: "npm test", exitCode: 1 }]);
  });

  it("a command that changed nothing ends responded — git confirms there is no change", async () => {
    const cwd = makeProject({ "package.json": packageJson(failScript), "a.txt": "a\n" }, { git: true });
    const harness = createHarness({
      tools: realTools(),
      replies: [[run("ls -la"), { text: "There is one file, a.txt." }]],
    });
    const report = await harness.run("what files are here?", { cwd });
    expect(report).toMatchObject({ outcome: "responded", filesChanged: [], verification: [] });
    expect(runCalls(harness)).toHaveLength(1);
  });

  it("a deleted file shows its removed lines", async () => {
    const cwd = makeProject(
      { "package.json": packageJson(passScript), "old.txt": "a\nb\nc\n" },
      { git: true },
    );
    const harness = createHarness({
      tools: realTools(),
      replies: [[run("rm old.txt"), { text: "Deleted." }]],
    });
    const report = await harness.run("delete old.txt", { cwd });
    expect(report.filesChanged).toEqual([{ path: "old.txt", added: 0, removed: 3 }]);
    expect(report.outcome).toBe("completed");
  });

  it("outside git, a before/after snapshot gives the +/- and the detected test decides", async () => {
    const cwd = makeProject({ "package.json": packageJson(passScript), "notes.md": "# Notes\nold\n" });
    const harness = createHarness({
      tools: realTools(),
      replies: [[write("notes.md", "# Notes\nnew\nmore\n"), { text: "Updated." }]],
    });
    const report = await harness.run("update notes", { cwd });
    expect(report.filesChanged).toEqual([{ path: "notes.md", added: 2, removed: 1 }]);
    expect(report).toMatchObject({
      outcome: "completed",
      verification: [{ command: "npm test", exitCode: 0 }],
    });
  });

  it("pauses (never completed) when files changed in a project with no verification, and says so", async () => {
    const cwd = makeProject({ "readme.txt": "hi\n", "package.json": JSON.stringify({ name: "p" }) });
    const harness = createHarness({
      tools: realTools(),
      replies: [[write("poem.txt", "roses\n"), { text: "Wrote it." }]],
    });
    const report = await harness.run("write a poem to poem.txt", { cwd });
    expect(report).toMatchObject({ outcome: "paused", endCause: "text-stop", verification: [] });
    expect(report.reason).toContain("no verification command was found");
    expect(report.filesChanged).toEqual([{ path: "poem.txt", added: 1, removed: 0 }]);
  });

  it("a refused verification is not evidence: paused, reason names the refusal", async () => {
    const cwd = makeProject({ "package.json": packageJson(passScript) }, { git: true });
    const harness = createHarness({
      tools: realTools(),
      replies: [[write("x.txt", "x\n"), { text: "Done." }]],
    });
    const report = await harness.run("make x", { cwd, authorizerFor: () => refuseCommands });
    expect(report).toMatchObject({ outcome: "paused", verification: [] });
    expect(report.reason).toContain("was refused");
    expect(report.reason).toContain("rerun with --yes");
  });

  it("feeds a failure back and completes once the model's fix makes the test pass", async () => {
    const check =
      "const fs=require('fs');if(fs.readFileSync('sum.txt','utf8').trim()!=='4'){console.log('expected 4');process.exit(1)}";
    const cwd = makeProject(
      { "package.json": packageJson("node check.js"), "check.js": check },
      { git: true },
    );
    const harness = createHarness({
      tools: realTools(),
      replies: [
        [
          write("sum.txt", "5\n"),
          { text: "Done." },
          write("sum.txt", "4\n"),
          run("npm test"),
          { text: "Fixed." },
        ],
      ],
    });
    const report = await harness.run("write 2+2 to sum.txt", { cwd });
    expect(report.outcome).toBe("completed");
    expect(report.verification).toEqual([
      { command: "npm test", exitCode: 1 },
      { command: "npm test", exitCode: 0 },
    ]);
    expect(JSON.stringify(harness.models[0]?.requests[2]?.prompt)).toContain("expected 4");
  });

  it("a timed-out verification is not evidence (exit none)", async () => {
    const slow = 'node -e "setTimeout(() => {}, 5000)"';
    const cwd = makeProject({ "a.txt": "a\n" }, { git: true });
    const harness = createHarness({
      tools: realTools(),
      settings: { verifyCommand: slow },
      replies: [
        [write("a.txt", "b\n"), run(slow, 300), { text: "Done." }, { text: "Done." }, { text: "Done." }],
      ],
    });
    const report = await harness.run("change a", { cwd });
    expect(report.outcome).toBe("failed");
    expect(report.verification).toEqual([{ command: slow, exitCode: null }]);
    expect(report.reason).toContain("did not finish");
  });

  it("a broken package.json pauses with a message that says what to fix", async () => {
    const cwd = makeProject({ "package.json": "{ not json" });
    const harness = createHarness({
      tools: realTools(),
      replies: [[write("a.txt", "a\n"), { text: "Done." }]],
    });
    const report = await harness.run("make a", { cwd });
    expect(report.outcome).toBe("paused");
    expect(report.reason).toContain("package.json");
    expect(report.reason).toContain("not valid JSON");
  });
});

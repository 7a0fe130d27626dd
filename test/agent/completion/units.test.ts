import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createChangeTracker, parseNumstat } from "../../../src/agent/completion/changes.js";
import { compactToolResults, shorten } from "../../../src/agent/completion/compaction.js";
import { guardLevel, unfinishedWork } from "../../../src/agent/completion/narration.js";
import { diffSnapshots, lineDiff, takeSnapshot } from "../../../src/agent/completion/snapshot.js";
import { summaryCut } from "../../../src/agent/completion/summarize.js";
import { detectVerification, isVerificationCommand } from "../../../src/agent/completion/verification.js";
import { TaskState } from "../../../src/agent/state.js";
import type { ModelMessage } from "../../../src/model/types.js";
import type { StoredMessage } from "../../../src/storage/transcripts.js";
import { makeProject, packageJson } from "./fixtures.js";

const stored = (message: ModelMessage, tokens = 10): StoredMessage => ({
  id: 1,
  taskId: "t",
  message,
  tokenEstimate: tokens,
});
const toolResult = (value: string): ModelMessage => ({
  role: "tool",
  content: [{ type: "tool-result", toolCallId: "c", toolName: "read_file", output: { type: "text", value } }],
});

describe("line diff and snapshots", () => {
  it("counts like git numstat", () => {
    expect(lineDiff(["a", "b", "c"], ["a", "B", "c"])).toEqual({ added: 1, removed: 1 });
    expect(lineDiff([], ["x", "y"])).toEqual({ added: 2, removed: 0 });
    expect(lineDiff(["x", "y"], [])).toEqual({ added: 0, removed: 2 });
    expect(lineDiff(["a", "b"], ["b", "a"])).toEqual({ added: 1, removed: 1 });
  });

  it("skips node_modules and .git, and marks a walk over the cap as unconfirmed", async () => {
    const root = makeProject({ "a.txt": "1\n", "node_modules/x/index.js": "junk\n", "sub/b.txt": "2\n" });
    const before = await takeSnapshot(root, { maxFiles: 10, maxFileBytes: 1024 });
    expect([...before.files.keys()].sort()).toEqual(["a.txt", "sub/b.txt"]);
    writeFileSync(join(root, "sub/b.txt"), "2\n3\n");
    writeFileSync(join(root, "node_modules/x/index.js"), "changed\n");
    const after = await takeSnapshot(root, { maxFiles: 10, maxFileBytes: 1024 });
    expect(diffSnapshots(before, after)).toEqual([{ path: "sub/b.txt", added: 1, removed: 0 }]);
    const capped = await takeSnapshot(root, { maxFiles: 1, maxFileBytes: 1024 });
    expect(capped.truncated).toBe(true);
  });

  it("a tracker over a capped snapshot never claims 'no changes'", async () => {
    const root = makeProject({ "a.txt": "1\n", "b.txt": "2\n", "c.txt": "3\n" });
    const tracker = createChangeTracker(root, { maxFiles: 2, maxFileBytes: 1024 });
    await tracker.begin();
    const report = await tracker.report();
    expect(report).toMatchObject({ confirmed: false, method: "snapshot" });
    expect(report.note).toContain("more than 2 files");
  });

  it("a tracker that never began reports confirmed no changes (no mutating tool ran)", async () => {
    const report = await createChangeTracker(makeProject({})).report();
    expect(report).toEqual({ files: [], confirmed: true, method: "none", note: "no mutating tool ran" });
  });

  it("parses numstat -z, binary files as 0", () => {
    expect(parseNumstat("3\t1\tsrc/a.ts\0-\t-\timg.png\0")).toEqual([
      { path: "src/a.ts", added: 3, removed: 1 },
      { path: "img.png", added: 0, removed: 0 },
    ]);
  });

  it("git tracker sees new untracked files and works in a repo without commits", async () => {
    const root = makeProject({});
    const { execFileSync } = await import("node:child_process");
    execFileSync("git", ["init", "-q"], { cwd: root });
    const tracker = createChangeTracker(root);
    await tracker.begin();
    mkdirSync(join(root, "d"));
    writeFileSync(join(root, "d/new.txt"), "a\nb\n");
    expect(await tracker.report()).toMatchObject({
      files: [{ path: "d/new.txt", added: 2, removed: 0 }],
      confirmed: true,
      method: "git",
      created: ["d/new.txt"],
      deleted: [],
    });
  });
});

describe("verification detection", () => {
  it("prefers configured, then package.json test, typecheck, build, check", () => {
    const root = makeProject({ "package.json": packageJson("vitest run") });
    expect(detectVerification(root, "make ci")).toEqual({ command: "make ci", source: "configured" });
    expect(detectVerification(root)?.command).toBe("npm test");
    const typed = makeProject({
      "package.json": JSON.stringify({ scripts: { typecheck: "tsc", build: "tsc -b" } }),
    });
    expect(detectVerification(typed)?.command).toBe("npm run typecheck");
  });

  it("skips npm's placeholder test script", () => {
    const root = makeProject({ "package.json": packageJson('echo "Error: no test specified" && exit 1') });
    expect(detectVerification(root)).toBeNull();
  });

  it("detects Makefile test, Cargo, go and pyproject", () => {
    expect(detectVerification(makeProject({ Makefile: "test:\n\tgo test\n" }))?.command).toBe("make test");
    expect(detectVerification(makeProject({ Makefile: "build:\n\tcc\n" }))).toBeNull();
    expect(detectVerification(makeProject({ "Cargo.toml": "[package]\n" }))?.command).toBe("cargo test");
    expect(detectVerification(makeProject({ "go.mod": "module x\n" }))?.command).toBe("go test ./...");
    expect(detectVerification(makeProject({ "pyproject.toml": "[project]\n" }))?.command).toBe("pytest");
  });

  it("matches the verification command with npm aliases and spacing, nothing looser", () => {
    const npm = { command: "npm test", source: "x" };
    expect(isVerificationCommand("npm  test", npm)).toBe(true);
    expect(isVerificationCommand("npm run test", npm)).toBe(true);
    expect(isVerificationCommand("npm t", npm)).toBe(true);
    expect(isVerificationCommand("npm test || true", npm)).toBe(false);
    expect(isVerificationCommand("echo npm test", npm)).toBe(false);
  });
});

describe("compaction and summary cut", () => {
  it("compacts only results over 8 KB beyond the newest 8 messages", () => {
    const huge = `HEAD${"x".repeat(20_000)}TAIL`;
    const history = [
      stored(toolResult(huge)),
      stored(toolResult("small")),
      ...Array.from({ length: 8 }, () => stored(toolResult(huge))),
    ];
    expect(compactToolResults(history)).toBe(1);
    const first = JSON.stringify(history[0]?.message);
    expect(first).toContain("HEAD");
    expect(first).toContain("TAIL");
    expect(first).toContain("omitted");
    expect(JSON.stringify(history[9]?.message)).toContain("x".repeat(20_000));
    expect(shorten(huge).length).toBeLessThan(5000);
  });

  it("never cuts right before a tool result", () => {
    const history = [
      stored({ role: "user", content: "go" }),
      stored({
        role: "assistant",
        content: [{ type: "tool-call", toolCallId: "c", toolName: "x", input: {} }],
      }),
      stored(toolResult("r")),
      stored({ role: "assistant", content: "text" }),
      stored(toolResult("r2"), 300),
    ];
    const cut = summaryCut(history, 500);
    expect(cut).not.toBeNull();
    expect(history[cut as number]?.message.role).not.toBe("tool");
  });
});

describe("narration guard decisions", () => {
  it("fires on open plan items, never on a tool-less conversation whatever the words", () => {
    const state = new TaskState("t", "s", "owner", []);
    expect(unfinishedWork(state, "I'll make you a workout plan. Let me know!")).toBeNull();
    state.setPlan([{ text: "a", done: false }]);
    expect(unfinishedWork(state, "All good.")?.openItems).toEqual(["a"]);
    state.setPlan([{ text: "a", done: true }]);
    expect(state.planItemsClosed).toBe(1);
    expect(unfinishedWork(state, "I'll now do more.")).toBeNull();
  });

  it("ladder order repeats", () => {
    expect([1, 2, 3, 4, 5].map(guardLevel)).toEqual([
      "grounding",
      "forced",
      "rotate",
      "wake-up",
      "grounding",
    ]);
  });
});

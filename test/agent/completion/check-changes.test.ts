import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createChangeTracker, workspaceFingerprint } from "../../../src/agent/completion/changes.js";
import { findCheckChanges } from "../../../src/agent/completion/check-changes.js";
import { isPlainFolder } from "../../../src/agent/completion/verification.js";
import { makeProject } from "./fixtures.js";

/** Real git baseline, `edit` applied to the files, then what the task changed about its checks. */
async function checkChangesAfter(files: Record<string, string>, edit: (root: string) => void) {
  const root = makeProject(files, { git: true });
  const tracker = createChangeTracker(root);
  await tracker.begin();
  edit(root);
  const report = await tracker.report();
  return findCheckChanges({
    report,
    baselineContent: (path) => tracker.baselineContent?.(path) ?? Promise.resolve(null),
    verification: { command: "npm test", source: "package.json script test" },
  });
}

const project = { "package.json": JSON.stringify({ name: "p", scripts: { test: "node run.js" } }) };

describe("changes to the checks (what a passing run can no longer prove)", () => {
  it("rewriting expected output (snapshots, golden files, fixtures, Go testdata) is a check change", async () => {
    const found = await checkChangesAfter(
      {
        ...project,
        "__snapshots__/out.snap": "right\n",
        "src/parse.golden": "right\n",
        "fixtures/input.json": "{}\n",
        "pkg/testdata/case.txt": "right\n",
      },
      (root) => {
        writeFileSync(join(root, "__snapshots__/out.snap"), "wrong\n");
        writeFileSync(join(root, "src/parse.golden"), "wrong\n");
        writeFileSync(join(root, "fixtures/input.json"), "[]\n");
        writeFileSync(join(root, "pkg/testdata/case.txt"), "wrong\n");
      },
    );
    expect(found.map((change) => change.path).sort()).toEqual([
      "__snapshots__/out.snap",
      "fixtures/input.json",
      "pkg/testdata/case.txt",
      "src/parse.golden",
    ]);
  });

  it("linter and type-checker configuration, and runner configuration inside package.json, are check changes", async () => {
    const found = await checkChangesAfter(
      { ...project, "biome.json": "{}\n", ".eslintrc.json": "{}\n" },
      (root) => {
        writeFileSync(join(root, "biome.json"), '{"linter":{"enabled":false}}\n');
        writeFileSync(join(root, ".eslintrc.json"), '{"rules":{}}\n');
        writeFileSync(
          join(root, "package.json"),
          JSON.stringify({
            name: "p",
            scripts: { test: "node run.js" },
            jest: { testPathIgnorePatterns: ["."] },
          }),
        );
      },
    );
    expect(found).toEqual(
      expect.arrayContaining([
        { path: "biome.json", change: "lint or type-check configuration modified" },
        { path: ".eslintrc.json", change: "lint or type-check configuration modified" },
        { path: "package.json", change: '"jest" configuration added' },
      ]),
    );
  });

  it("ordinary source edits and new tests are not check changes", async () => {
    const found = await checkChangesAfter({ ...project, "src/a.ts": "export const a = 1;\n" }, (root) => {
      writeFileSync(join(root, "src/a.ts"), "export const a = 2;\n");
      mkdirSync(join(root, "test"));
      writeFileSync(join(root, "test/a.test.ts"), "new test\n");
      writeFileSync(
        join(root, "package.json"),
        JSON.stringify({ name: "p2", scripts: { test: "node run.js" } }),
      );
    });
    expect(found).toEqual([]);
  });
});

describe("workspace fingerprint (evidence is for the files it saw)", () => {
  it("changes when a file changes and comes back when it is restored", async () => {
    const root = makeProject({ "a.txt": "one\n" }, { git: true });
    const tracker = createChangeTracker(root);
    await tracker.begin();
    const before = workspaceFingerprint(await tracker.report());
    writeFileSync(join(root, "a.txt"), "two\n");
    const changed = workspaceFingerprint(await tracker.report());
    writeFileSync(join(root, "a.txt"), "one\n");
    expect(before).not.toBeNull();
    expect(changed).not.toBe(before);
    expect(workspaceFingerprint(await tracker.report())).toBe(before);
  });

  it("works outside git too (snapshot hashes)", async () => {
    const root = makeProject({ "a.txt": "one\n" });
    const tracker = createChangeTracker(root);
    await tracker.begin();
    const before = workspaceFingerprint(await tracker.report());
    writeFileSync(join(root, "a.txt"), "two\n");
    expect(before).toMatch(/^snapshot:/);
    expect(workspaceFingerprint(await tracker.report())).not.toBe(before);
  });
});

describe("plain folder", () => {
  it("a subfolder of a repository whose top is a project is no plain folder; a repository without a manifest is", () => {
    const root = makeProject(
      { "package.json": project["package.json"], "docs/readme.md": "x\n" },
      { git: true },
    );
    expect(isPlainFolder(join(root, "docs"))).toBe(false);
    const notes = makeProject({ "notes/a.md": "x\n" }, { git: true });
    expect(isPlainFolder(join(notes, "notes"))).toBe(true);
    expect(isPlainFolder(makeProject({ "a.md": "x\n" }))).toBe(true);
  });
});

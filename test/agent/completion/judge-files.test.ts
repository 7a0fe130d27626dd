import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { judgeFileChanges, judgeFiles } from "../../../src/agent/completion/judge-files.js";

const folders: string[] = [];
afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

function project(files: Record<string, string>): string {
  const folder = mkdtempSync(join(tmpdir(), "mercury-judge-"));
  folders.push(folder);
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(folder, path)), { recursive: true });
    writeFileSync(join(folder, path), content);
  }
  return folder;
}

const npmScript = (test: string) => JSON.stringify({ name: "p", scripts: { test } });

describe("the judge's files: what each runner reads before it runs the check", () => {
  it.each([
    ["yarn test", { "package.json": npmScript("node check.js") }, ".yarnrc.yml", "yarnPath: fake.cjs\n"],
    ["yarn test", { "package.json": npmScript("node check.js"), ".yarnrc": "" }, ".yarnrc", "yarn-path x\n"],
    ["pnpm test", { "package.json": npmScript("node check.js") }, ".pnpmfile.cjs", "module.exports={}\n"],
    ["bun test", {}, "bunfig.toml", '[test]\npreload = ["./skip.ts"]\n'],
    ["npm test", { "package.json": npmScript("vitest run") }, "vitest.config.mts", "export default {}\n"],
    ["npm test", { "package.json": npmScript("jest") }, "babel.config.js", "module.exports={}\n"],
    ["npm test", { "package.json": npmScript("mocha") }, ".mocharc.yml", "spec: none\n"],
    ["pytest", { "pyproject.toml": "[project]\nname='p'\n" }, ".pytest.ini", "[pytest]\naddopts = --co\n"],
    ["python -m pytest", {}, "conftest.py", "import pytest\n"],
    ["tox", { "tox.ini": "[tox]\n" }, "tox.ini", "[tox]\nskipsdist=true\n"],
    ["cargo test", {}, ".cargo/config.toml", '[target.x86_64-unknown-linux-gnu]\nrunner = "true"\n'],
    ["go test ./...", {}, "go.work", "go 1.22\nuse ./fake\n"],
    [
      "make test",
      { Makefile: "include rules.mk\n-include local.mk\n", "rules.mk": "test:\n\texit 1\n" },
      "rules.mk",
      "test:\n\t@echo ok\n",
    ],
    ["make test", { Makefile: "include rules.mk\n", "rules.mk": "include deeper.mk\n" }, "deeper.mk", "x\n"],
    ["make test", { Makefile: "-include local.mk\ntest:\n\texit 1\n" }, "local.mk", "test:\n\ttrue\n"],
  ])("`%s`: %s then %s written is a change to the judge", (command, files, path, content) => {
    const cwd = project(files);
    const recorded = judgeFiles(cwd, { command, source: "configured" });
    expect(judgeFileChanges(cwd, recorded)).toEqual([]);
    mkdirSync(dirname(join(cwd, path)), { recursive: true });
    writeFileSync(join(cwd, path), content);
    const changes = judgeFileChanges(cwd, recorded);
    expect(changes.map((change) => change.path)).toEqual([path]);
    expect(changes[0]?.change).toMatch(/(created|modified)$/);
  });

  it("files of runners the check does not run, and ordinary source files, are not the judge", () => {
    const cwd = project({ "package.json": npmScript("vitest run"), "src/a.ts": "export const a = 1;\n" });
    const recorded = judgeFiles(cwd, { command: "npm test", source: "package.json" });
    for (const [path, content] of [
      ["bunfig.toml", "[test]\n"],
      [".yarnrc.yml", "x: 1\n"],
      ["pytest.ini", "[pytest]\n"],
      ["src/a.ts", "export const a = 2;\n"],
      ["rules.mk", "x\n"],
    ] as const)
      writeFileSync(join(cwd, path), content);
    expect(judgeFileChanges(cwd, recorded)).toEqual([]);
  });

  it("an include built from a variable or a glob is make's to resolve, not hashed", () => {
    const cwd = project({ Makefile: "include $(ROOT)/x.mk\ninclude *.mk\ntest:\n\texit 1\n" });
    const hashed = Object.keys(judgeFiles(cwd, { command: "make test", source: "Makefile" }));
    expect(hashed.filter((path) => !path.startsWith("node_modules/")).sort()).toEqual([
      "GNUmakefile",
      "Makefile",
      "makefile",
    ]);
  });
});

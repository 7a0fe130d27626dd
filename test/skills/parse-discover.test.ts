import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { systemClock } from "../../src/agent/clock.js";
import { catalogueSection } from "../../src/skills/catalogue.js";
import { discoverSkills } from "../../src/skills/discover.js";
import { parseSkillText } from "../../src/skills/parse.js";
import { SkillService } from "../../src/skills/service.js";
import { isValidSkillName } from "../../src/skills/types.js";
import { openMemoryDatabase } from "../../src/storage/database.js";
import { skillMd, tempRoot, writeFiles } from "./helpers.js";

const parse = (text: string, folder = "pdf-tools") =>
  parseSkillText(text, `/s/${folder}/SKILL.md`, `/s/${folder}`, "mercury");

describe("SKILL.md parsing against the Agent Skills spec", () => {
  it("reads name, description and the optional fields", () => {
    const result = parse(
      "---\nname: pdf-tools\ndescription: Work with PDF files.\nlicense: MIT\ncompatibility: needs poppler\nmetadata:\n  author: me\n  version: 2\nallowed-tools: Bash(pdftotext:*) Read\n---\n# Steps\nRun it.\n",
    );
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.skill).toMatchObject({
      name: "pdf-tools",
      description: "Work with PDF files.",
      license: "MIT",
      compatibility: "needs poppler",
      metadata: { author: "me", version: "2" },
      allowedTools: ["Bash(pdftotext:*)", "Read"],
      body: "# Steps\nRun it.",
      warnings: [],
    });
  });

  it("name rules: a-z 0-9 and single hyphens, 1–64, not at either end", () => {
    for (const good of ["a", "pdf-tools", "x1-2", "a".repeat(64)]) expect(isValidSkillName(good)).toBe(true);
    for (const bad of ["", "PDF", "-a", "a-", "a--b", "a_b", "../x", "a/b", "a".repeat(65), "é"])
      expect(isValidSkillName(bad)).toBe(false);
  });

  it("a bad or mismatched name is a warning, not a refusal (the folder name is used when the declared one is unusable)", () => {
    const bad = parse(skillMd("PDF_Tools", "Work with PDFs."));
    expect(bad.ok && bad.skill.name).toBe("pdf-tools");
    expect(bad.ok && bad.skill.warnings[0]).toContain('name "PDF_Tools" is invalid');
    const mismatch = parse(skillMd("other-name", "Work with PDFs."));
    expect(mismatch.ok && mismatch.skill.name).toBe("other-name");
    expect(mismatch.ok && mismatch.skill.warnings[0]).toContain("differs from its folder");
  });

  it("a skill with no description is skipped with the reason", () => {
    const result = parse("---\nname: pdf-tools\n---\nbody\n");
    expect(result).toMatchObject({
      ok: false,
      problem: { reason: expect.stringContaining("no description") },
    });
  });

  it("unparsable YAML and a missing frontmatter are skipped with the reason", () => {
    expect(parse("---\nname: pdf-tools\ndescription: [unclosed\n---\nbody\n")).toMatchObject({
      ok: false,
      problem: { reason: expect.stringContaining("unparsable YAML") },
    });
    expect(parse("# just markdown\n")).toMatchObject({
      ok: false,
      problem: { reason: expect.stringContaining("no YAML frontmatter") },
    });
  });

  it("a description over 1024 characters is cut with a warning", () => {
    const result = parse(skillMd("pdf-tools", "d".repeat(1500)));
    expect(result.ok && result.skill.description.length).toBe(1024);
    expect(result.ok && result.skill.warnings.join()).toContain("1024");
  });
});

describe("discovery", () => {
  it("the more specific source wins a name clash, with a warning; .git and node_modules are skipped; depth is bounded", () => {
    const root = tempRoot();
    writeFiles(root, {
      "ws/review/SKILL.md": skillMd("review", "Workspace review."),
      "home/review/SKILL.md": skillMd("review", "Mercury review."),
      "home/deploy/SKILL.md": skillMd("deploy", "Deploy."),
      "home/deploy/references/inner/SKILL.md": skillMd("inner", "A skill's own subfolder is not a skill."),
      "home/.git/hidden/SKILL.md": skillMd("hidden", "In .git."),
      "home/node_modules/dep/SKILL.md": skillMd("dep", "In node_modules."),
      "home/a/b/c/d/deep/SKILL.md": skillMd("deep", "Too deep."),
      "home/group/nested/SKILL.md": skillMd("nested", "Grouped one level down."),
      "user/broken/SKILL.md": "---\nname: broken\n---\nno description\n",
    });
    const discovery = discoverSkills([
      { source: "user", directory: join(root, "user") },
      { source: "mercury", directory: join(root, "home") },
      { source: "workspace", directory: join(root, "ws") },
    ]);
    expect(discovery.skills.map((skill) => `${skill.name}:${skill.source}`)).toEqual([
      "deploy:mercury",
      "nested:mercury",
      "review:workspace",
    ]);
    expect(discovery.warnings.join("\n")).toContain('skill "review"');
    expect(discovery.problems).toHaveLength(1);
    expect(discovery.problems[0]?.reason).toContain("no description");
  });

  it("a workspace's .agents/skills are read only after the owner trusts it, and that is persisted", () => {
    const root = tempRoot();
    const workspace = join(root, "project");
    writeFiles(workspace, { ".agents/skills/build/SKILL.md": skillMd("build", "Build this project.") });
    mkdirSync(join(root, "home"), { recursive: true });
    const database = openMemoryDatabase();
    const service = new SkillService({
      home: join(root, "home"),
      userHome: join(root, "user"),
      database,
      clock: systemClock,
    });
    expect(service.available(workspace).map((skill) => skill.name)).toEqual([]);
    service.state.trust(workspace, "owner");
    const again = new SkillService({
      home: join(root, "home"),
      userHome: join(root, "user"),
      database,
      clock: systemClock,
    });
    expect(again.available(join(workspace, "sub")).map((skill) => skill.name)).toEqual(["build"]);
    again.state.untrust(workspace);
    expect(again.available(workspace)).toEqual([]);
  });

  it("disabled skills leave the catalogue", () => {
    const root = tempRoot();
    writeFiles(root, {
      "home/skills/a/SKILL.md": skillMd("a", "A."),
      "home/skills/b/SKILL.md": skillMd("b", "B."),
    });
    const service = new SkillService({
      home: join(root, "home"),
      userHome: join(root, "user"),
      database: openMemoryDatabase(),
      clock: systemClock,
    });
    service.state.setDisabled("a", true);
    expect(service.available(root).map((skill) => skill.name)).toEqual(["b"]);
    expect(service.promptSection(root)).toContain("- b: B.");
    expect(service.promptSection(root)).not.toContain("- a:");
  });

  it("the catalogue stays within its budget and says how many were left out", () => {
    const root = tempRoot();
    const files: Record<string, string> = {};
    for (let index = 0; index < 60; index++)
      files[`s${index}/SKILL.md`] = skillMd(`s${index}`, "word ".repeat(150));
    writeFiles(root, files);
    const { skills } = discoverSkills([{ source: "mercury", directory: root }]);
    const section = catalogueSection(skills, 500);
    expect(section.length).toBeLessThanOrEqual(500 * 4);
    expect(section).toMatch(/\d+ more skills not described here/);
  });
});

describe("skill folders readable without asking", () => {
  it("a linked skill folder pointing at the user's home is not made readable", async () => {
    const { symlinkSync } = await import("node:fs");
    const root = tempRoot();
    const userHome = join(root, "user");
    writeFiles(userHome, { "SKILL.md": skillMd("user", "Planted in home.") });
    writeFiles(root, { "home/skills/ok/SKILL.md": skillMd("ok", "Fine.") });
    symlinkSync(userHome, join(root, "home", "skills", "user"));
    const service = new SkillService({
      home: join(root, "home"),
      userHome,
      database: openMemoryDatabase(),
      clock: systemClock,
    });
    expect(
      service
        .available(root)
        .map((skill) => skill.name)
        .sort(),
    ).toEqual(["ok", "user"]);
    expect(service.readRoots(root)).toEqual([join(root, "home", "skills", "ok")]);
  });
});

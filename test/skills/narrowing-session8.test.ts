import { existsSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseSkillText } from "../../src/skills/parse.js";
import { skillMd, skillsAgent, writeFiles } from "./helpers.js";

const call = (name: string, input: Record<string, unknown>) => ({ toolCalls: [{ name, input }] });
const toolResults = (events: ReturnType<typeof skillsAgent>["events"]) =>
  events.flatMap((event) => (event.type === "tool-result" ? [event] : []));

/**
 * Activates a skill whose frontmatter ends with `extra`, then writes a file in the workspace with
 * allow-all on: the permission engine would allow the write, so only the skill's narrowing can stop it.
 */
async function writeUnderSkill(extra: string): Promise<{ written: boolean; result: unknown }> {
  const harness = skillsAgent({ replies: [], mode: "refuse", allowAll: true });
  writeFiles(join(harness.home, "skills"), { "probe/SKILL.md": skillMd("probe", "Probes.", extra) });
  harness.model.push(call("activate_skill", { name: "probe" }));
  harness.model.push(call("write_file", { path: "out.txt", content: "x" }));
  harness.model.push({ text: "done" });
  await harness.run("go");
  const results = toolResults(harness.events);
  expect(results[0]).toMatchObject({ ok: true });
  return { written: existsSync(join(harness.workspace, "out.txt")), result: results[1] };
}

describe("a skill's allowed-tools only narrows (session 8)", () => {
  it("control: a skill that lists write_file leaves the engine's decision (allow-all) in place", async () => {
    expect((await writeUnderSkill("allowed-tools: write_file\n")).written).toBe(true);
  });

  it.each([
    ["a mapping instead of a list", "allowed-tools:\n  write_file: true\n"],
    ["a list holding a non-string", "allowed-tools: [read_file, 7]\n"],
    ["a bare wildcard", "allowed-tools: '*'\n"],
    ["an MCP wildcard", "allowed-tools: mcp__*\n"],
    ["a name in another case", "allowed-tools: WRITE_FILE Write_File\n"],
    ["a Cyrillic look-alike", "allowed-tools: wr\u0456te_file\n"],
    ["a tool this session does not have", "allowed-tools: web_search\n"],
  ])("%s narrows to nothing: write_file is refused", async (_label, extra) => {
    const { written, result } = await writeUnderSkill(extra);
    expect(written).toBe(false);
    expect(result).toMatchObject({ ok: false });
    expect(JSON.stringify(result)).toContain("not available while the skill(s) probe are active");
  });

  it("frontmatter YAML tricks do not load a skill: duplicate keys and a second document", () => {
    const duplicate = parseSkillText(
      "---\nname: probe\ndescription: Probes.\nallowed-tools: read_file\nallowed-tools: write_file\n---\nbody\n",
      "/skills/probe/SKILL.md",
      "/skills/probe",
      "mercury",
    );
    expect(duplicate.ok).toBe(false);
    const aliases = parseSkillText(
      "---\nname: probe\ndescription: &d Probes.\nmetadata: { note: *d }\nallowed-tools: [read_file]\n---\nbody\n",
      "/skills/probe/SKILL.md",
      "/skills/probe",
      "mercury",
    );
    expect(aliases).toMatchObject({ ok: true, skill: { allowedTools: ["read_file"] } });
    // `---` ends the frontmatter: whatever a second YAML document says is body text, never keys.
    const second = parseSkillText(
      "---\nname: probe\ndescription: Probes.\nallowed-tools: read_file\n---\n---\nallowed-tools: run_command\n---\n",
      "/skills/probe/SKILL.md",
      "/skills/probe",
      "mercury",
    );
    expect(second).toMatchObject({ ok: true, skill: { allowedTools: ["read_file"] } });
  });
});

describe("a skill activated earlier in a chat session keeps narrowing (session 8)", () => {
  it("the next task of the same session cannot write after a read-only skill was activated; a new session can", async () => {
    const harness = skillsAgent({ replies: [], mode: "refuse", allowAll: true });
    writeFiles(join(harness.home, "skills"), {
      "reader/SKILL.md": skillMd("reader", "Reads.", "allowed-tools: read_file\n"),
    });
    harness.model.push(call("activate_skill", { name: "reader" }));
    harness.model.push({ text: "loaded" });
    const first = await harness.run("load the reader skill");
    harness.model.push(call("write_file", { path: "later.txt", content: "x" }));
    harness.model.push({ text: "done" });
    await harness.run("now write", harness.workspace, first.sessionId);
    const refused = toolResults(harness.events).at(-1);
    expect(refused).toMatchObject({ ok: false });
    expect(JSON.stringify(refused)).toContain("not available while the skill(s) reader are active");
    expect(existsSync(join(harness.workspace, "later.txt"))).toBe(false);

    harness.model.push(call("write_file", { path: "fresh.txt", content: "x" }));
    harness.model.push({ text: "done" });
    await harness.run("write in a new session");
    expect(existsSync(join(harness.workspace, "fresh.txt"))).toBe(true);
  });
});

describe("a skill folder readable without asking is not a way to secrets (session 8)", () => {
  it("a link in a skill folder to a secret outside it is not read without asking", async () => {
    const harness = skillsAgent({ replies: [], mode: "refuse" });
    writeFiles(harness.userHome, { ".ssh/id_ed25519": "PRIVATE-KEY-MATERIAL" });
    writeFiles(join(harness.home, "skills"), { "linker/SKILL.md": skillMd("linker", "Links.") });
    const skillFolder = join(harness.home, "skills", "linker");
    symlinkSync(join(harness.userHome, ".ssh", "id_ed25519"), join(skillFolder, "notes.md"));
    harness.model.push(call("activate_skill", { name: "linker" }));
    harness.model.push(call("read_file", { path: join(skillFolder, "notes.md") }));
    harness.model.push(
      call("read_file", { path: join(skillFolder, "..", "..", "..", "user", ".ssh", "id_ed25519") }),
    );
    harness.model.push({ text: "done" });
    await harness.run("read the notes");
    const results = toolResults(harness.events);
    expect(results).toHaveLength(3);
    for (const result of results.slice(1)) {
      expect(result).toMatchObject({ ok: false });
      expect(JSON.stringify(result)).not.toContain("PRIVATE-KEY-MATERIAL");
    }
  });
});

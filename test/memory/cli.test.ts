import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Command } from "commander";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { registerMemoryCommands } from "../../src/cli/commands/memory.js";
import { type Harness, makeHarness } from "./store/harness.js";

let harness: Harness;
let dir: string;
beforeEach(async () => {
  harness = makeHarness();
  dir = await mkdtemp(join(tmpdir(), "mercury-memory-cli-"));
});
afterEach(async () => {
  process.exitCode = 0;
  await rm(dir, { recursive: true, force: true });
});

async function run(...args: string[]) {
  let out = "";
  let err = "";
  const program = new Command().exitOverride();
  registerMemoryCommands(program, async () => harness.service, {
    stdout: (text) => {
      out += text;
    },
    stderr: (text) => {
      err += text;
    },
  });
  process.exitCode = 0;
  await program.parseAsync(["node", "mercury", "memory", ...args]);
  const code = process.exitCode ?? 0;
  process.exitCode = 0;
  return { out, err, code };
}

function json(output: string): Record<string, unknown> {
  const lines = output.trim().split("\n");
  expect(lines).toHaveLength(1);
  return JSON.parse(lines[0] ?? "") as Record<string, unknown>;
}

describe("mercury memory", () => {
  it("add, search, list, show, history, edit, forget — with --json printing one document each", async () => {
    const added = await run("add", "I", "prefer", "dark", "mode", "--kind", "preference", "--json");
    expect(added.code).toBe(0);
    const addedJson = json(added.out) as {
      action: string;
      memory: { id: number; evidence: string; confidence: number };
    };
    expect(addedJson.action).toBe("created");
    expect(addedJson.memory.evidence).toBe("manual");
    expect(addedJson.memory.confidence).toBe(0.95);
    const id = String(addedJson.memory.id);

    expect((await run("add", "I prefer dark mode")).out).toBe(`Confirmed: I prefer dark mode (#${id}, 1×)\n`);
    const searched = json((await run("search", "DARK-mode?", "--json")).out) as {
      results: { id: number; relevance: number }[];
    };
    expect(searched.results[0]?.id).toBe(Number(id));
    expect((await run("list")).out).toMatch(
      new RegExp(`^#${id} \\[preference\\] I prefer dark mode — manual, confidence`),
    );
    expect(json((await run("show", id, "--json")).out)).toMatchObject({
      ok: true,
      memory: { id: Number(id), confirmations: 1 },
    });
    expect((await run("edit", id, "I prefer light mode")).out).toBe(
      "Updated: I prefer light mode (was: I prefer dark mode)\n",
    );
    const history = json((await run("history", id, "--json")).out) as { versions: { reason: string }[] };
    expect(history.versions.map((version) => version.reason)).toEqual(["created", "confirmed", "edited"]);
    expect((await run("forget", id)).out).toBe(`Forgotten: memory #${id}\n`);
    expect(json((await run("list", "--json")).out)).toEqual({ ok: true, memories: [] });
  });

  it("keeps --user scopes apart", async () => {
    await run("add", "My dog is called Rex", "--user", "telegram:42");
    expect(json((await run("list", "--json")).out)).toEqual({ ok: true, memories: [] });
    expect(
      (json((await run("list", "--user", "telegram:42", "--json")).out).memories as unknown[]).length,
    ).toBe(1);
    const search = json((await run("search", "dog", "--json")).out) as { results: unknown[] };
    expect(search.results).toEqual([]);
  });

  it("exits 1 for a missing memory and 2 for bad arguments, with a message", async () => {
    const missing = await run("show", "999", "--json");
    expect(missing.code).toBe(1);
    expect(json(missing.out)).toEqual({
      ok: false,
      error: expect.stringMatching(/No memory #999 for user "owner"/),
    });
    const badId = await run("forget", "abc");
    expect(badId.code).toBe(2);
    expect(badId.err).toMatch(/the memory id must be a positive whole number; got "abc"/);
    const badKind = await run("add", "Likes", "tea", "--kind", "wish");
    expect(badKind.code).toBe(2);
    expect(badKind.err).toMatch(/--kind must be one of fact, preference/);
    const badTier = await run("list", "--tier", "frozen");
    expect(badTier.code).toBe(2);
  });

  it("shows conflicts and stats including the extraction queue", async () => {
    await harness.service.remember({
      userKey: "owner",
      text: "The user does not own a car",
      kind: "fact",
      importance: "normal",
      evidence: "inferred",
    });
    await harness.service.remember({
      userKey: "owner",
      text: "The user owns a car",
      kind: "fact",
      importance: "normal",
      evidence: "inferred",
    });
    harness.service.enqueueExtraction({
      userKey: "owner",
      sessionId: "s",
      messageIds: [1],
      transcriptExcerpt: "user: hi",
    });
    await harness.service.runPendingExtractions();
    const conflicts = json((await run("conflicts", "--json")).out) as { conflicts: unknown[] };
    expect(conflicts.conflicts).toHaveLength(1);
    expect((await run("conflicts")).out).toMatch(/vs #\d+/);
    const stats = json((await run("stats", "--json")).out) as {
      memories: { current: number };
      conflicts: number;
      extraction: { jobs: { queued: number }; queue: { lastError: string }[] };
    };
    expect(stats.memories.current).toBe(2);
    expect(stats.conflicts).toBe(1);
    expect(stats.extraction.jobs.queued).toBe(1);
    expect(stats.extraction.queue[0]?.lastError).toMatch(/no model/);
    expect((await run("stats")).out).toMatch(/extraction queue: 1 queued/);
  });

  it("exports and imports JSONL and Markdown through files", async () => {
    await run("add", "I speak Danish", "--importance", "high");
    await run("add", "I live in Aarhus", "--user", "telegram:3");
    const jsonl = join(dir, "memories.jsonl");
    const md = join(dir, "memories.md");
    expect(json((await run("export", "--out", jsonl, "--all-users", "--json")).out)).toMatchObject({
      count: 2,
      path: jsonl,
    });
    expect(json((await run("export", "--format", "md", "--out", md, "--json")).out)).toMatchObject({
      count: 1,
    });
    expect(await readFile(md, "utf8")).toContain(
      "- [fact] I speak Danish — manual, confirmed 0×, high, active",
    );

    harness = makeHarness();
    expect(json((await run("import", jsonl, "--json")).out)).toMatchObject({
      ok: true,
      format: "jsonl",
      imported: 2,
    });
    expect(json((await run("import", md, "--json")).out)).toMatchObject({
      format: "md",
      imported: 0,
      skipped: 1,
    });
    expect((await run("list", "--user", "telegram:3")).out).toMatch(/I live in Aarhus/);

    const broken = join(dir, "broken.jsonl");
    await writeFile(broken, '{"type":"memory"}\n');
    const failed = await run("import", broken);
    expect(failed.code).toBe(1);
    expect(failed.err).toMatch(/^line 1: /);
    const absent = await run("import", join(dir, "absent.jsonl"));
    expect(absent.code).toBe(1);
    expect(absent.err).toMatch(/cannot read/);
  });
});

import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { startEmbeddingsServer } from "../fakes/embeddings-server.js";
import { makeHome, providerEnv, runCli } from "../helpers/cli.js";
import { useFakeServers } from "../helpers/fake-servers.js";

const server = useFakeServers();

const EMBEDDINGS = {
  MERCURY_EMBEDDINGS_PROVIDER: "openai-compatible",
  MERCURY_EMBEDDINGS_MODEL: "e",
  MERCURY_EMBEDDINGS_DIMENSIONS: "8",
};

function texts(stdout: string, key: "results" | "memories"): string[] {
  return (JSON.parse(stdout) as Record<string, { text: string }[]>)[key]?.map((entry) => entry.text) ?? [];
}

describe("memory commands when things go wrong (built binary)", () => {
  it.each([
    ["returns garbage", { rawBody: '{"data":"not vectors"}' }],
    ["answers 500", { failWith: { status: 500, body: "overloaded" } }],
  ])(
    "an embedding server that %s: add and search work by words, with a notice",
    { timeout: 120_000 },
    async (_name, options) => {
      const embeddings = await startEmbeddingsServer({ dimensions: 8, ...options });
      try {
        const { home, userHome } = makeHome();
        const env = { ...EMBEDDINGS, MERCURY_EMBEDDINGS_BASE_URL: embeddings.baseUrl };
        const added = await runCli(["memory", "add", "I am allergic to penicillin"], { home, userHome, env });
        expect(added.code, added.stderr).toBe(0);
        expect(added.stderr).toContain("notice: embeddings unavailable");
        const found = await runCli(["memory", "search", "--json", "penicillin"], { home, userHome, env });
        expect(found.code, found.stderr).toBe(0);
        expect(texts(found.stdout, "results")).toEqual(["I am allergic to penicillin"]);
        expect(found.stderr).not.toContain("Please report this");
      } finally {
        await embeddings.close();
      }
    },
  );

  it("a model judge that answers broken JSON twice: the memory is kept and the comparison waits, visibly", {
    timeout: 120_000,
  }, async () => {
    const fake = await server({ replies: [{ text: "{not json" }, { text: "still [not json" }] });
    const { home, userHome } = makeHome();
    const env = providerEnv(fake.url);
    expect((await runCli(["memory", "add", "I live in Paris"], { home, userHome, env })).code).toBe(0);
    const added = await runCli(["memory", "add", "--json", "I moved to Berlin"], { home, userHome, env });
    expect(added.code, added.stderr).toBe(0);
    expect(JSON.parse(added.stdout)).toMatchObject({ action: "created", waitingForJudge: true });
    const text = await runCli(["memory", "stats"], { home, userHome, env });
    expect(text.stdout).toContain("judge queue: 1 waiting");
    const stats = JSON.parse((await runCli(["memory", "stats", "--json"], { home, userHome, env })).stdout);
    expect(stats.judgeQueue).toBe(1);
    expect(JSON.stringify(stats.extraction.recentFailures)).toContain("judge");
    const listed = await runCli(["memory", "list", "--json"], { home, userHome, env });
    expect(texts(listed.stdout, "memories").sort()).toEqual(["I live in Paris", "I moved to Berlin"]);
  });

  it("a hand-written import with duplicates and rewordings keeps one memory per fact, and no two people merge", {
    timeout: 120_000,
  }, async () => {
    const { home, userHome } = makeHome();
    const file = join(mkdtempSync(join(tmpdir(), "mercury-import-")), "mine.md");
    writeFileSync(
      file,
      [
        "# What I told you",
        "- I am allergic to penicillin",
        "- I'm allergic to penicillin",
        "- I have two cats",
        "- I have 2 cats",
        "- My sister lives in Lyon",
        "- My brother lives in Lyon",
        "- I like café au lait ☕",
        "",
      ].join("\n"),
    );
    const imported = await runCli(["memory", "import", file], { home, userHome });
    expect(imported.code, imported.stderr).toBe(0);
    const listed = await runCli(["memory", "list", "--json"], { home, userHome });
    const current = texts(listed.stdout, "memories");
    expect(current).toHaveLength(5);
    expect(current.filter((text) => /allergic to penicillin/.test(text))).toHaveLength(1);
    expect(current.filter((text) => /cats/.test(text))).toHaveLength(1);
    expect(current).toContain("My sister lives in Lyon");
    expect(current).toContain("My brother lives in Lyon");
    for (const query of ["cafe", "café", "☕"]) {
      const found = await runCli(["memory", "search", "--json", query], { home, userHome });
      expect(texts(found.stdout, "results"), query).toEqual(["I like café au lait ☕"]);
    }
  });

  it("unicode and length: composed and decomposed accents match, a 2000-character memory is kept, a longer one refused", {
    timeout: 120_000,
  }, async () => {
    const { home, userHome } = makeHome();
    const run = (...args: string[]) => runCli(["memory", ...args], { home, userHome });
    expect((await run("add", "Mi abuela vive en Bogota\u0301")).code).toBe(0);
    expect(texts((await run("search", "--json", "Bogotá")).stdout, "results")).toHaveLength(1);
    expect((await run("add", "Я живу в Москве")).code).toBe(0);
    expect(texts((await run("search", "--json", "Москве")).stdout, "results")).toEqual(["Я живу в Москве"]);
    const long = `My notes: ${"lorem ipsum dolor ".repeat(120)}`.slice(0, 2000);
    const kept = await run("add", long);
    expect(kept.code, kept.stderr).toBe(0);
    const refused = await run("add", `${long}x`);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/2001 characters; keep a memory under 2000/);
    const blank = await run("add", "   ");
    expect(blank.code).toBe(2);
    expect(blank.stderr).toMatch(/empty/);
  });
});

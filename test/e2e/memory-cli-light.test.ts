import { describe, expect, it } from "vitest";
import { makeHome, providerEnv, runCli } from "../helpers/cli.js";
import { useFakeServers } from "../helpers/fake-servers.js";
import { coverageTracer, programFiles, sameNames } from "../helpers/load-tracer.js";

const server = useFakeServers();

/** What a memory command must never load: the AI SDK, providers, the agent, tools, MCP, the daemon. */
const heavy = [
  /\/node_modules\/ai\//,
  /\/node_modules\/@ai-sdk\//,
  /\/dist\/model\//,
  /\/dist\/agent\/runtime\.js/,
];
const neverForMemory = [
  ...heavy,
  /\/dist\/tools\//,
  /\/dist\/mcp\//,
  /\/dist\/skills\//,
  /\/dist\/scheduler\//,
  /\/dist\/app\/container\.js/,
  /\/dist\/daemon\/(run|supervisor|socket-server)\.js/,
];

describe("memory commands load only what memory needs", () => {
  it("search and an add without neighbours never load the providers; an add that needs the judge asks the configured model", {
    timeout: 120_000,
  }, async () => {
    const fake = await server({
      replies: [{ text: '{"judgements":[{"id":1,"verdict":"update","reason":"the user moved"}]}' }],
    });
    const { home, userHome } = makeHome();
    // Each run's compiled files and built-in modules, from V8's coverage output: `memory add|search`
    // load their modules with `require` (memory-fast.ts), which a loader hook does not see in full.
    const traced = async (args: string[]) => {
      const tracer = coverageTracer(home);
      const result = await runCli(args, { home, userHome, env: { ...providerEnv(fake.url), ...tracer.env } });
      const raw = tracer.files(true);
      return { ...result, loads: sameNames(raw), program: programFiles(raw) };
    };

    const first = await traced(["memory", "add", "--json", "The user lives in Paris."]);
    expect(first.code).toBe(0);
    expect((JSON.parse(first.stdout) as { action: string }).action).toBe("created");
    const firstLoads = first.loads;
    // The bin ran it from its CommonJS copy: not one file of the ES-module program was loaded.
    expect(first.program).toEqual([]);
    expect(firstLoads.some((url) => url.endsWith("/dist/app/memory-cli.js"))).toBe(true);
    for (const pattern of neverForMemory) expect(firstLoads.filter((url) => pattern.test(url))).toEqual([]);

    const search = await traced(["memory", "search", "--json", "Paris"]);
    expect(search.code).toBe(0);
    expect((JSON.parse(search.stdout) as { results: { text: string }[] }).results[0]?.text).toBe(
      "The user lives in Paris.",
    );
    for (const pattern of neverForMemory) expect(search.loads.filter((url) => pattern.test(url))).toEqual([]);
    expect(search.program).toEqual([]);
    // The store is current and no model judges: neither zod nor the migrations are loaded; a plain
    // `memory search` does not even load the command-line parser.
    for (const pattern of [
      /\/node_modules\/zod\//,
      /\/dist\/storage\/migrations\//,
      /\/dist\/config\/schema\.js/,
      /\/node_modules\/commander\//,
    ])
      expect(search.loads.filter((url) => pattern.test(url))).toEqual([]);
    // No embeddings configured: no embedder, no vector store. A search builds no prompt section and
    // writes nothing to rotate: no profile or recall formatting, no daemon lock code.
    const searchOnly = [
      /\/dist\/memory\/search\/(embedder-config|openai-embedder|hash-embedder|vectors|simhash|vector-adoption)\.js/,
      /\/dist\/memory\/store\/(profile|recall)\.js/,
      /\/dist\/memory\/recall-section\.js/,
      /\/dist\/daemon\/lock\.js/,
    ];
    for (const pattern of searchOnly) expect(search.loads.filter((url) => pattern.test(url))).toEqual([]);
    expect(search.loads.some((url) => url.endsWith("/dist/memory/search/search-index-core.js"))).toBe(true);
    // The config snapshot is compared as text (no node:crypto); --as-of's provenance code only with
    // --as-of; better-sqlite3 is required, not imported (no ES-module scan of its CommonJS files: the
    // lexer Node loads for that scan is absent).
    for (const pattern of [
      /^node:crypto$/,
      /\/dist\/memory\/store\/provenance\.js$/,
      /^node:internal\/deps\/cjs-module-lexer\//,
    ])
      expect(search.loads.filter((url) => pattern.test(url))).toEqual([]);
    // The module count this test guards (55 ES module files when written; the limit leaves a little room).
    // better-sqlite3's own CommonJS files, which its index requires, are not ours to count.
    const searchFiles = search.loads.filter(
      (url) => url.startsWith("file:") && !url.includes("/node_modules/better-sqlite3/"),
    );
    expect(searchFiles.length).toBeGreaterThan(30);
    expect(searchFiles.length).toBeLessThanOrEqual(58);
    expect(fake.chatRequests()).toHaveLength(0);

    // A neighbour exists and a model is configured: the model judges (loaded at that moment), not the rules.
    const moved = await traced(["memory", "add", "--json", "The user moved to Berlin."]);
    expect(moved.code).toBe(0);
    expect(fake.chatRequests()).toHaveLength(1);
    expect(JSON.stringify(fake.chatRequests()[0]?.body)).toContain("The user lives in Paris.");
    expect((JSON.parse(moved.stdout) as { action: string }).action).toBe("superseded");
    const movedLoads = moved.loads;
    // The judge's provider chain and the AI SDK, required by the CommonJS copy too.
    expect(moved.program).toEqual([]);
    expect(movedLoads.some((url) => /\/dist\/model\/chain\.js/.test(url))).toBe(true);
    expect(
      movedLoads.filter((url) => /\/dist\/(agent\/runtime|app\/container|tools\/|mcp\/)/.test(url)),
    ).toEqual([]);

    const current = await traced(["memory", "search", "--json", "user lives"]);
    const texts = (JSON.parse(current.stdout) as { results: { text: string }[] }).results.map((r) => r.text);
    expect(texts).toContain("The user moved to Berlin.");
    expect(texts).not.toContain("The user lives in Paris.");
  });

  it("memory disabled in config is a clear error", { timeout: 60_000 }, async () => {
    const { home, userHome } = makeHome("memory:\n  enabled: false\n");
    const result = await runCli(["memory", "search", "tea"], { home, userHome, env: {} });
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain("memory is disabled");
  });
});

import { describe, expect, it } from "vitest";
import { makeHome, runCli } from "../helpers/cli.js";
import { coverageTracer, sameNames } from "../helpers/load-tracer.js";

/**
 * `memory add` and `memory search` start in about the time of `node` itself only while they load few
 * module files: each costs Node's ES-module loader about half a millisecond before its code even
 * compiles (BENCHMARKS.md, issue 11 memory-command latency, 2026-12-02). This pins, by name, the
 * modules made lazy or joined for that, so a new static import cannot bring one back unnoticed.
 * A structural check: it counts files, never time.
 */
const neverForAdd = [
  // The final ranking of recalled memories: loaded by `search` (service-core.ts), not by consolidation.
  /\/dist\/memory\/retrieval\.js$/,
  /\/dist\/memory\/store\/ranking\.js$/,
  /\/dist\/memory\/search\/rank\.js$/,
];
const neverForEither = [
  // The forget code: episodes.ts holds the "[forgotten]" marker that reading turns needs.
  /\/dist\/memory\/store\/redaction\.js$/,
  // The text barrel: the analyzer is imported directly.
  /\/dist\/memory\/text\/index\.js$/,
  // Joined into sqlite-vec.ts (deleteVectorsOf), which the index needs anyway.
  /\/dist\/memory\/search\/vector-tables\.js$/,
  // No model call: neither the providers nor the validator.
  /\/dist\/model\//,
  /\/node_modules\/zod\//,
];
const neverForSearch = [/\/dist\/memory\/consolidation\//];

/**
 * The module files a run compiled. better-sqlite3's own CommonJS files (required by its index, not by
 * us) are left out, as the loader hook this test used before never saw them; `memory add|search` load
 * their modules with `require` (memory-fast.ts), which only V8's coverage output lists in full.
 */
function moduleFiles(tracer: ReturnType<typeof coverageTracer>): string[] {
  return sameNames(tracer.files()).filter((url) => !url.includes("/node_modules/better-sqlite3/"));
}

describe("memory add and search load a pinned set of modules", () => {
  it("add loads no ranking, search no consolidation, neither the forget code", {
    timeout: 120_000,
  }, async () => {
    // A configured provider without a key: the rules decide, as in the latency benchmark.
    const { home, userHome } = makeHome("provider: openai\nmodel: gpt-4o-mini\nlog:\n  level: info\n");
    // The first run validates config.yaml (zod) and leaves its snapshot; the runs below read it.
    const first = await runCli(["memory", "add", "--json", "My sister lives in Paris."], { home, userHome });
    expect(first.code).toBe(0);

    const addTracer = coverageTracer(home);
    const add = await runCli(["memory", "add", "--json", "My brother lives in Lyon."], {
      home,
      userHome,
      env: addTracer.env,
    });
    expect(add.code).toBe(0);
    expect((JSON.parse(add.stdout) as { action: string }).action).toBe("created");
    const addLoads = moduleFiles(addTracer);
    expect(addLoads.some((url) => url.endsWith("/dist/memory/consolidation/consolidate.js"))).toBe(true);
    for (const pattern of [...neverForAdd, ...neverForEither])
      expect(addLoads.filter((url) => pattern.test(url))).toEqual([]);

    const searchTracer = coverageTracer(home);
    const search = await runCli(["memory", "search", "--json", "sister", "Paris"], {
      home,
      userHome,
      env: searchTracer.env,
    });
    expect(search.code).toBe(0);
    expect((JSON.parse(search.stdout) as { results: { text: string }[] }).results[0]?.text).toBe(
      "My sister lives in Paris.",
    );
    const searchLoads = moduleFiles(searchTracer);
    expect(searchLoads.some((url) => url.endsWith("/dist/memory/retrieval.js"))).toBe(true);
    for (const pattern of [...neverForSearch, ...neverForEither])
      expect(searchLoads.filter((url) => pattern.test(url))).toEqual([]);

    // The counts when written (add 65, search 54 module files, node: built-ins not counted; 71 and 56 before),
    // plus the two files the session-10 merge added to both paths (memory/text/text-pattern.js, which saves more
    // than it costs, and cli/closed-output.js), with a little room; a new module on either path has to be worth
    // its half millisecond.
    // A tracer that missed the required files would pass the caps below with nothing to count.
    expect(addLoads.length).toBeGreaterThan(40);
    expect(searchLoads.length).toBeGreaterThan(30);
    expect(addLoads.length).toBeLessThanOrEqual(68);
    expect(searchLoads.length).toBeLessThanOrEqual(57);
  });
});

import { describe, expect, it } from "vitest";
import { runMemoryScaleBench } from "../../../src/memory/bench/memory-scale.js";
import { syntheticMemories, syntheticQueries } from "../../../src/memory/bench/synthetic.js";
import { makeHome, runCli } from "../../helpers/cli.js";

describe("synthetic memories", () => {
  it("are deterministic for a seed and varied", () => {
    const first = syntheticMemories(500, 1);
    expect(syntheticMemories(500, 1)).toEqual(first);
    expect(syntheticMemories(500, 2)).not.toEqual(first);
    expect(new Set(first).size).toBeGreaterThan(450);
    expect(syntheticQueries(20, 3)).toEqual(syntheticQueries(20, 3));
  });
});

describe("runMemoryScaleBench", () => {
  it("reports ingest, lexical and hybrid latency and memory for a small n", async () => {
    const report = await runMemoryScaleBench({ n: 300, queries: 20 });
    expect(report.n).toBe(300);
    expect(report.ingest.docsPerSecond).toBeGreaterThan(0);
    expect(report.lexical.queryMs.p95).toBeGreaterThanOrEqual(report.lexical.queryMs.p50);
    expect(report.hybrid.dimensions).toBe(384);
    expect(report.hybrid.queryMs.p50).toBeGreaterThan(0);
    // The live store's default: binary codes rescored with the float vectors.
    expect(report.hybrid.quantization).toBe("binary");
    expect(report.addOne.ms.p95).toBeGreaterThanOrEqual(report.addOne.ms.p50);
    // Vectors take room: 384 float32 = 1536 bytes each at least.
    expect(report.bytesPerMemory.withVectors - report.bytesPerMemory.lexical).toBeGreaterThan(1000);
    expect(report.peakRssMb).toBeGreaterThan(0);
    // Every phase of the run is timed.
    for (const seconds of Object.values(report.phaseSeconds)) expect(seconds).toBeGreaterThanOrEqual(0);
    expect(Object.keys(report.phaseSeconds)).toHaveLength(7);
    // A small store: the first stage is the unbounded one, and the 800 codes rescored are all of them.
    expect(report.lexical.top10AgreementWithExhaustive).toBe(1);
    expect(report.hybrid.vectorRecallAt10).toBe(1);
  });

  it("measures float vectors too", async () => {
    const report = await runMemoryScaleBench({ n: 200, queries: 5, adds: 3, quantization: "float" });
    expect(report.hybrid.quantization).toBe("float");
    expect(report.hybrid.queryMs.p50).toBeGreaterThan(0);
    // Float vectors are searched exactly.
    expect(report.hybrid.vectorRecallAt10).toBe(1);
  });

  it("rejects a non-positive n", async () => {
    await expect(runMemoryScaleBench({ n: 0 })).rejects.toThrow(/positive integer/);
  });
});

describe("mercury bench memory-scale (built binary)", () => {
  it("prints one JSON report with agreement and vector recall, and refuses a bad quantization", async () => {
    const { home } = makeHome();
    const result = await runCli(
      ["bench", "memory-scale", "--n", "200", "--queries", "5", "--quantization", "binary", "--json"],
      { home },
    );
    expect(result.code, result.stderr).toBe(0);
    const report = JSON.parse(result.stdout) as {
      n: number;
      lexical: { top10AgreementWithExhaustive: number };
      hybrid: { quantization: string; vectorRecallAt10: number };
      bytesPerMemory: { lexical: number; withVectors: number };
    };
    expect(report.n).toBe(200);
    expect(report.hybrid.quantization).toBe("binary");
    expect(report.hybrid.vectorRecallAt10).toBe(1);
    expect(report.bytesPerMemory.withVectors).toBeGreaterThan(report.bytesPerMemory.lexical);
    const bad = await runCli(["bench", "memory-scale", "--n", "10", "--quantization", "half"], { home });
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toMatch(/float, int8 or binary/);
  }, 120_000);
});

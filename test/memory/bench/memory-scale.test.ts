import { describe, expect, it } from "vitest";
import { runMemoryScaleBench } from "../../../src/memory/bench/memory-scale.js";
import { syntheticMemories, syntheticQueries } from "../../../src/memory/bench/synthetic.js";

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
    expect(report.hybrid.quantization).toBe("float");
    expect(report.addOne.ms.p95).toBeGreaterThanOrEqual(report.addOne.ms.p50);
    // Vectors take room: 384 float32 = 1536 bytes each at least.
    expect(report.bytesPerMemory.withVectors - report.bytesPerMemory.lexical).toBeGreaterThan(1000);
    expect(report.peakRssMb).toBeGreaterThan(0);
  });

  it("measures quantized vectors too", async () => {
    const report = await runMemoryScaleBench({ n: 200, queries: 5, adds: 3, quantization: "binary" });
    expect(report.hybrid.quantization).toBe("binary");
    expect(report.hybrid.queryMs.p50).toBeGreaterThan(0);
  });

  it("rejects a non-positive n", async () => {
    await expect(runMemoryScaleBench({ n: 0 })).rejects.toThrow(/positive integer/);
  });
});

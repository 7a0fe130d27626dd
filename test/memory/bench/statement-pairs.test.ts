import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadPairs, PAIR_LABELS, runPairsBench } from "../../../src/memory/bench/statement-pairs.js";

const pairs = loadPairs(join(import.meta.dirname, "../fixtures/statement-pairs.jsonl"));

describe("statement-pair benchmark (test/memory/fixtures/statement-pairs.jsonl)", () => {
  it("has at least 150 labelled pairs covering every label in English and Chinese", () => {
    expect(pairs.length).toBeGreaterThanOrEqual(150);
    for (const label of PAIR_LABELS) {
      for (const lang of ["en", "zh"]) {
        expect(
          pairs.filter((pair) => pair.label === label && pair.lang === lang).length,
          `${label}/${lang}`,
        ).toBeGreaterThan(0);
      }
    }
    expect(new Set(pairs.map((pair) => pair.id)).size).toBe(pairs.length);
  });

  it("the deterministic fallback never supersedes or confirms wrongly, and loses nothing", async () => {
    const report = await runPairsBench(pairs, "rules");
    expect(report.failures.map((failure) => `${failure.pair.id} ${failure.action}`)).toEqual([]);
    expect(report.wrongSupersessions).toBe(0);
    expect(report.wrongConfirmations).toBe(0);
    expect(report.informationLost).toBe(0);
    expect(report.updates.superseded).toBe(0);
    // The missed updates are at least flagged for the user.
    expect(report.updates.flaggedAsConflict).toBeGreaterThan(report.updates.total / 2);
  });

  it("the judge driven by a scripted model catches updates and keeps what a 'same' would erase", async () => {
    const report = await runPairsBench(pairs, "oracle");
    expect(report.wrongSupersessions).toBe(0);
    expect(report.wrongConfirmations).toBe(0);
    expect(report.informationLost).toBe(0);
    expect(report.updates.superseded).toBeGreaterThan(report.updates.total * 0.8);
    expect(report.contradictions.flaggedAsConflict).toBe(report.contradictions.total);
  });
});

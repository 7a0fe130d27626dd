import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadPairs, runPairsBench } from "../../../src/memory/bench/statement-pairs.js";

// Built by class, not copied from the other pair files: relatives with and without names (in-laws,
// step-, half-, ex-), pronoun and possessive subjects ("Jane's birthday" / "my birthday"), units,
// ranges, approximate and bounded numbers ("over 10 years"), numbers in another order ("3月4日" /
// "4月3日", "12/05" / "05/12"), dates in several formats, polarity spelled many ways (never, n't,
// no, cannot, 不, 没), Chinese persons and numbers.
const classes = loadPairs(join(import.meta.dirname, "../fixtures/statement-pairs-classes.jsonl"));

describe("class-built statement pairs (test/memory/fixtures/statement-pairs-classes.jsonl)", () => {
  it.each(["rules", "oracle", "noisy", "liar"] as const)(
    "%s: no wrong supersession, no wrong confirmation, nothing lost",
    async (mode) => {
      const report = await runPairsBench(classes, mode);
      expect(report.pairs).toBeGreaterThanOrEqual(60);
      expect(report.failures.map((failure) => `${failure.pair.id} ${failure.action}`)).toEqual([]);
      // The true updates in the file (moved, no longer, 不再, 搬到) are still caught.
      if (mode !== "noisy") expect(report.updates.superseded).toBe(report.updates.total);
    },
  );

  it("the lying judge's other lie on every pair (ids shifted: update where it said same) is refused too", async () => {
    // The liar answers "update" on odd ids and "same" on even ones: shifting every id by one makes it
    // tell each pair the other lie, so every pair meets both.
    const shifted = classes.map((pair) => ({ ...pair, id: pair.id + 1 }));
    const report = await runPairsBench(shifted, "liar");
    expect(report.failures.map((failure) => `${failure.pair.id - 1} ${failure.action}`)).toEqual([]);
  });
});

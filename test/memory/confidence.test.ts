import { describe, expect, it } from "vitest";
import { confidence, type EVIDENCE_BASE } from "../../src/memory/confidence.js";

const now = new Date("2026-06-01T00:00:00.000Z");
const fresh = now.toISOString();

describe("confidence", () => {
  it("orders evidence kinds by strength, all else equal", () => {
    const of = (evidence: keyof typeof EVIDENCE_BASE) =>
      confidence({ evidence, confirmations: 0, contradictions: 0, lastConfirmedAt: fresh }, now);
    expect(of("manual")).toBeGreaterThan(of("user-confirmed"));
    expect(of("user-confirmed")).toBeGreaterThan(of("user-stated"));
    expect(of("user-stated")).toBeGreaterThan(of("imported"));
    expect(of("imported")).toBeGreaterThan(of("agent-observed"));
    expect(of("agent-observed")).toBeGreaterThan(of("inferred"));
    expect(of("inferred")).toBe(0.5);
  });

  it("rises with confirmations with diminishing returns and falls with contradictions", () => {
    const at = (confirmations: number, contradictions: number) =>
      confidence({ evidence: "inferred", confirmations, contradictions, lastConfirmedAt: fresh }, now);
    expect(at(1, 0)).toBeGreaterThan(at(0, 0));
    expect(at(1, 0) - at(0, 0)).toBeGreaterThan(at(10, 0) - at(9, 0));
    expect(at(0, 1)).toBeLessThan(at(0, 0));
    // One contradiction costs more than one confirmation gains.
    expect(at(0, 0) - at(0, 1)).toBeGreaterThan(at(1, 0) - at(0, 0));
  });

  it("fades with time since the last confirmation, never below 60% of support", () => {
    const support = confidence(
      { evidence: "user-stated", confirmations: 0, contradictions: 0, lastConfirmedAt: fresh },
      now,
    );
    const yearOld = confidence(
      {
        evidence: "user-stated",
        confirmations: 0,
        contradictions: 0,
        lastConfirmedAt: "2025-06-01T00:00:00.000Z",
      },
      now,
    );
    const ancient = confidence(
      {
        evidence: "user-stated",
        confirmations: 0,
        contradictions: 0,
        lastConfirmedAt: "1990-01-01T00:00:00.000Z",
      },
      now,
    );
    expect(support).toBe(0.88);
    expect(yearOld).toBeCloseTo(0.88 * 0.8, 2);
    expect(ancient).toBeGreaterThanOrEqual(Math.floor(0.88 * 0.6 * 100) / 100);
    expect(ancient).toBeLessThan(yearOld);
  });

  it("stays in [0, 1] under extreme counts", () => {
    for (const [confirmations, contradictions] of [
      [0, 1000],
      [1000, 0],
      [1000, 1000],
    ] as const) {
      const value = confidence(
        { evidence: "manual", confirmations, contradictions, lastConfirmedAt: fresh },
        now,
      );
      expect(value).toBeGreaterThanOrEqual(0);
      expect(value).toBeLessThanOrEqual(1);
    }
  });

  it("refuses bad input instead of guessing", () => {
    expect(() =>
      confidence({ evidence: "manual", confirmations: -1, contradictions: 0, lastConfirmedAt: fresh }, now),
    ).toThrow(/confirmations/);
    expect(() =>
      confidence(
        { evidence: "manual", confirmations: 0, contradictions: 0, lastConfirmedAt: "yesterday" },
        now,
      ),
    ).toThrow(/not a date/);
  });
});

import { describe, expect, it } from "vitest";
import { CODE_BITS, Hyperplanes } from "../../../src/memory/search/simhash.js";

function hamming(a: Buffer, b: Buffer): number {
  let bits = 0;
  for (let index = 0; index < a.length; index++) {
    let x = (a[index] as number) ^ (b[index] as number);
    while (x) {
      bits += x & 1;
      x >>= 1;
    }
  }
  return bits;
}

/** A seeded dense vector (a real embedding's shape). */
function dense(dimensions: number, seed: number): Float32Array {
  let state = seed;
  return Float32Array.from({ length: dimensions }, () => {
    state = (Math.imul(state, 1103515245) + 12345) >>> 0;
    return state / 2 ** 32 - 0.5;
  });
}

function angle(a: Float32Array, b: Float32Array): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  for (let index = 0; index < a.length; index++) {
    dot += (a[index] as number) * (b[index] as number);
    na += (a[index] as number) ** 2;
    nb += (b[index] as number) ** 2;
  }
  return Math.acos(Math.max(-1, Math.min(1, dot / Math.sqrt(na * nb))));
}

describe("SimHash codes", () => {
  it("are the same in every instance and for any positive multiple of the vector", () => {
    const vector = dense(64, 1);
    const code = new Hyperplanes(64).code(vector);
    expect(code.length).toBe(CODE_BITS / 8);
    expect(new Hyperplanes(64).code(vector).equals(code)).toBe(true);
    expect(new Hyperplanes(64).code(vector.map((value) => value * 3.5)).equals(code)).toBe(true);
  });

  it("differ in about angle / pi of their bits, for dense and for sparse vectors", () => {
    const hyperplanes = new Hyperplanes(64);
    const base = dense(64, 2);
    const sparse = new Float32Array(64);
    sparse[3] = 1;
    sparse[17] = -0.5;
    sparse[40] = 0.25;
    for (const [a, b] of [
      [base, base.map((value, index) => value + (index % 2 ? 0.1 : -0.1))],
      [base, dense(64, 3)],
      [base, base.map((value) => -value)],
      [sparse, sparse.map((value, index) => (index === 17 ? 0 : value))],
    ] as const) {
      const expected = angle(a, b) / Math.PI;
      const measured = hamming(hyperplanes.code(a), hyperplanes.code(b)) / CODE_BITS;
      // The standard deviation of the estimate is at most sqrt(0.25 / 768) ≈ 0.018.
      expect(Math.abs(measured - expected)).toBeLessThan(0.08);
    }
  });

  it("rejects a vector of the wrong size", () => {
    expect(() => new Hyperplanes(8).code(new Float32Array(9))).toThrow(/8-dimension/);
  });
});

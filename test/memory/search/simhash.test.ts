import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { HashEmbedder } from "../../../src/memory/search/hash-embedder.js";
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

  it("are the codes the one-dimension-at-a-time loop computed (stored codes stay valid)", () => {
    // Digest of codes written by the plain loop (main at 4b24f48): dense vectors, vectors with 10 to
    // 90 non-zero coordinates (every remainder of the four-at-a-time pass) and hash-embedder vectors.
    const hyperplanes = new Hyperplanes(384);
    const hash = createHash("sha256");
    for (let seed = 1; seed <= 5; seed++) hash.update(hyperplanes.code(dense(384, seed)));
    for (let nonZero = 1; nonZero <= 9; nonZero++) {
      const vector = dense(384, 100 + nonZero).map((value, index) => (index % 37 < nonZero ? value : 0));
      hash.update(hyperplanes.code(vector));
    }
    const embedder = new HashEmbedder(384);
    for (const text of [
      "The user's sister Maria adopted a dog named Kalomi.",
      "Which editor does the user use with Rust?",
      "x",
    ])
      hash.update(hyperplanes.code(embedder.embedOne(text)));
    expect(hash.digest("hex")).toBe("3fa0cf687e2605bb87a3a5e0056f164b7adf3960a197139fb6f5a4147d29a1d4");
  });

  it("rejects a vector of the wrong size", () => {
    expect(() => new Hyperplanes(8).code(new Float32Array(9))).toThrow(/8-dimension/);
  });
});

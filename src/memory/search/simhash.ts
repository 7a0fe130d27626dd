import { mulberry32 } from "../text/mulberry32.js";

/**
 * Binary codes of vectors by random hyperplanes (SimHash, Charikar 2002): bit j is the side of the
 * j-th hyperplane the vector lies on, and the fraction of differing bits between two codes estimates
 * the angle between the vectors, whatever their shape. Taking the signs of a vector's own coordinates
 * (sqlite-vec's vec_quantize_binary) does that only for dense vectors: a sparse one has mostly zero
 * coordinates, which all become the same bit.
 *
 * The hyperplanes' coefficients are integers from a fixed integer generator, so every process and version
 * computes the same codes (no floating-point functions whose last bit may differ). Changing SEED,
 * CODE_BITS or the generator changes every code: bump CODE_SCHEME, which makes the vector store
 * re-embed (vectors.ts keys its configuration on it).
 */
export const CODE_BITS = 768;
export const CODE_SCHEME = "simhash-768-v1";
const SEED = 0x5eed_c0de;

export class Hyperplanes {
  /**
   * Row d holds dimension d's coefficient in each of the CODE_BITS hyperplanes. Float64, not Float32:
   * the coefficients are small integers either way, and the sums are Float64, so no conversion per
   * multiply-add.
   */
  private readonly coefficients: Float64Array;
  private readonly sums = new Float64Array(CODE_BITS);
  private readonly nonZero: Int32Array;

  constructor(readonly dimensions: number) {
    this.coefficients = new Float64Array(dimensions * CODE_BITS);
    this.nonZero = new Int32Array(dimensions);
    const next = mulberry32(SEED);
    // Each coefficient is the sum of four uniform bytes, centred: nearly Gaussian, so the
    // hyperplanes point in every direction alike (±1 coefficients would give a vector with three
    // non-zero coordinates only eight directions to be told apart by), and an exact integer.
    for (let index = 0; index < this.coefficients.length; index++) {
      const bits = next();
      this.coefficients[index] =
        (bits & 0xff) + ((bits >>> 8) & 0xff) + ((bits >>> 16) & 0xff) + (bits >>> 24) - 510;
    }
  }

  /**
   * The vector's code: CODE_BITS / 8 bytes, bit j (byte j >> 3, bit j & 7) set on the positive side.
   *
   * Each bit's sum adds the non-zero coordinates' products in dimension order, as a plain loop would,
   * so the codes are the same to the last bit; four dimensions are added per pass over the sums
   * (one load and store of a sum per four products, not per product): 3x faster on the hash
   * embedder's vectors (~53 non-zero coordinates of 384), which a million-memory store embeds.
   */
  code(vector: Float32Array): Buffer {
    if (vector.length !== this.dimensions)
      throw new RangeError(`expected a ${this.dimensions}-dimension vector, got ${vector.length}`);
    const sums = this.sums;
    const coefficients = this.coefficients;
    const nonZero = this.nonZero;
    sums.fill(0);
    // Real embeddings are dense; sparse ones (the hash embedder) skip most rows.
    let count = 0;
    for (let dimension = 0; dimension < this.dimensions; dimension++)
      if (vector[dimension] !== 0) nonZero[count++] = dimension;
    let next = 0;
    for (; next + 4 <= count; next += 4) {
      const d0 = nonZero[next] as number;
      const d1 = nonZero[next + 1] as number;
      const d2 = nonZero[next + 2] as number;
      const d3 = nonZero[next + 3] as number;
      const v0 = vector[d0] as number;
      const v1 = vector[d1] as number;
      const v2 = vector[d2] as number;
      const v3 = vector[d3] as number;
      const r0 = d0 * CODE_BITS;
      const r1 = d1 * CODE_BITS;
      const r2 = d2 * CODE_BITS;
      const r3 = d3 * CODE_BITS;
      for (let bit = 0; bit < CODE_BITS; bit++) {
        // Left to right: ((sum + p0) + p1) + ..., the order of the one-dimension-at-a-time loop.
        sums[bit] =
          (sums[bit] as number) +
          v0 * (coefficients[r0 + bit] as number) +
          v1 * (coefficients[r1 + bit] as number) +
          v2 * (coefficients[r2 + bit] as number) +
          v3 * (coefficients[r3 + bit] as number);
      }
    }
    for (; next < count; next++) {
      const dimension = nonZero[next] as number;
      const value = vector[dimension] as number;
      const row = dimension * CODE_BITS;
      for (let bit = 0; bit < CODE_BITS; bit++)
        sums[bit] = (sums[bit] as number) + value * (coefficients[row + bit] as number);
    }
    const code = Buffer.alloc(CODE_BITS / 8);
    for (let bit = 0; bit < CODE_BITS; bit++) {
      if ((sums[bit] as number) > 0) code[bit >> 3] = (code[bit >> 3] as number) | (1 << (bit & 7));
    }
    return code;
  }
}

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
  /** Row d holds dimension d's coefficient in each of the CODE_BITS hyperplanes. */
  private readonly coefficients: Float32Array;
  private readonly sums = new Float64Array(CODE_BITS);

  constructor(readonly dimensions: number) {
    this.coefficients = new Float32Array(dimensions * CODE_BITS);
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

  /** The vector's code: CODE_BITS / 8 bytes, bit j (byte j >> 3, bit j & 7) set on the positive side. */
  code(vector: Float32Array): Buffer {
    if (vector.length !== this.dimensions)
      throw new RangeError(`expected a ${this.dimensions}-dimension vector, got ${vector.length}`);
    const sums = this.sums;
    sums.fill(0);
    for (let dimension = 0; dimension < this.dimensions; dimension++) {
      const value = vector[dimension] as number;
      // Real embeddings are dense; sparse ones (the hash embedder) skip most rows.
      if (value === 0) continue;
      const row = dimension * CODE_BITS;
      for (let bit = 0; bit < CODE_BITS; bit++)
        sums[bit] = (sums[bit] as number) + value * (this.coefficients[row + bit] as number);
    }
    const code = Buffer.alloc(CODE_BITS / 8);
    for (let bit = 0; bit < CODE_BITS; bit++) {
      if ((sums[bit] as number) > 0) code[bit >> 3] = (code[bit >> 3] as number) | (1 << (bit & 7));
    }
    return code;
  }
}

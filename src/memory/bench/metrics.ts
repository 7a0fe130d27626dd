/** Share of the relevant ids found in the first k of the ranking. */
export function recallAt(ranking: readonly string[], relevant: ReadonlySet<string>, k: number): number {
  if (relevant.size === 0) throw new RangeError("recall needs at least one relevant id");
  let found = 0;
  for (const id of ranking.slice(0, k)) if (relevant.has(id)) found++;
  return found / relevant.size;
}

/** nDCG@k with binary relevance: DCG = sum of 1/log2(rank + 1) over relevant ranks <= k. */
export function ndcgAt(ranking: readonly string[], relevant: ReadonlySet<string>, k: number): number {
  if (relevant.size === 0) throw new RangeError("nDCG needs at least one relevant id");
  let dcg = 0;
  ranking.slice(0, k).forEach((id, index) => {
    if (relevant.has(id)) dcg += 1 / Math.log2(index + 2);
  });
  let ideal = 0;
  for (let index = 0; index < Math.min(k, relevant.size); index++) ideal += 1 / Math.log2(index + 2);
  return dcg / ideal;
}

/** Nearest-rank percentile (p in (0, 100]) of a non-empty sample. */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) throw new RangeError("percentile of an empty sample");
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[rank - 1] as number;
}

export function mean(values: readonly number[]): number {
  return values.length === 0 ? 0 : values.reduce((sum, value) => sum + value, 0) / values.length;
}

export function round(value: number, digits = 3): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}

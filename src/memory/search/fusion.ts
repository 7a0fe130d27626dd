/**
 * Fusing the lexical and vector lists.
 *
 * Order: reciprocal rank fusion, rrf(d) = sum over lists of 1 / (RRF_K + rank(d)), robust to the
 * two retrievers' incomparable score scales.
 *
 * relevance(d) in [0, 1] = 0.5 * rrf(d) / rrf_max + 0.5 * mean over lists of score(d) / best score,
 * where rrf_max = the fused score of a document ranked first by every list, and a list that did not
 * return d contributes 0. The score half keeps real gaps visible (a document with a third of the
 * best BM25 score is far less relevant even when ranked second), which the bounded boosts of
 * rank.ts must not be able to overturn.
 */
export const RRF_K = 10;

export interface RankedList {
  /** Best first. Scores are >= 0 and comparable within the list only. */
  items: readonly { documentId: number; score: number }[];
}

export interface FusedCandidate {
  documentId: number;
  relevance: number;
  ranks: (number | null)[];
}

export function fuse(lists: readonly RankedList[]): FusedCandidate[] {
  const active = lists.filter((list) => list.items.length > 0);
  if (active.length === 0) return [];
  const byId = new Map<number, { rrf: number; scoreShare: number; ranks: (number | null)[] }>();
  lists.forEach((list, listIndex) => {
    const best = list.items[0]?.score ?? 0;
    list.items.forEach((item, position) => {
      let entry = byId.get(item.documentId);
      if (!entry) {
        entry = { rrf: 0, scoreShare: 0, ranks: lists.map(() => null) };
        byId.set(item.documentId, entry);
      }
      entry.rrf += 1 / (RRF_K + position + 1);
      entry.scoreShare += best > 0 ? Math.max(0, item.score) / best : 0;
      entry.ranks[listIndex] = position + 1;
    });
  });
  const rrfMax = active.length / (RRF_K + 1);
  const fused: (FusedCandidate & { rrf: number })[] = [];
  for (const [documentId, entry] of byId) {
    const relevance = 0.5 * (entry.rrf / rrfMax) + 0.5 * (entry.scoreShare / active.length);
    fused.push({ documentId, relevance: Math.min(1, relevance), ranks: entry.ranks, rrf: entry.rrf });
  }
  fused.sort((a, b) => b.rrf - a.rrf || b.relevance - a.relevance || a.documentId - b.documentId);
  return fused.map(({ documentId, relevance, ranks }) => ({ documentId, relevance, ranks }));
}

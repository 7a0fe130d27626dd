import { performance } from "node:perf_hooks";
import { openMemoryDatabase } from "../../storage/database.js";
import { SearchIndex, type SearchIndexOptions } from "../search/search-index.js";
import type { IndexedDocument } from "../search/types.js";
import { type Conversation, normalizeEvidenceId, type Session, type Turn } from "./locomo.js";
import { mean, ndcgAt, percentile, recallAt, round } from "./metrics.js";

export const RECALL_KS = [1, 5, 10, 20, 50] as const;

export interface RetrievalReport {
  questions: number;
  recallAt: Record<"1" | "5" | "10" | "20" | "50", number>;
  ndcgAt10: number;
  recallAt10ByCategory: Record<string, number>;
  latencyMs: { p50: number; p95: number };
  conversations: number;
  documents: number;
  skippedQuestions: number;
}

export interface RetrievalOptions {
  /** Neighbouring turns of the same session indexed as low-weight context (default 1 each side). */
  window?: number;
  search?: SearchIndexOptions;
}

const SCOPE = "bench";

/** The episodic document of one turn: speaker, text, image caption, and its session's date. */
export function turnText(turn: Turn, session: Session): string {
  const caption = turn.blip_caption ? ` [shared an image: ${turn.blip_caption}]` : "";
  const date = session.dateTime ? ` (${session.dateTime})` : "";
  return `${turn.speaker}: ${turn.text}${caption}${date}`;
}

function contextText(turn: Turn): string {
  const caption = turn.blip_caption ? ` [image: ${turn.blip_caption}]` : "";
  return `${turn.text}${caption}`;
}

export function conversationDocuments(
  conversation: Conversation,
  window: number,
): { docs: IndexedDocument[]; idOf: Map<number, string> } {
  const docs: IndexedDocument[] = [];
  const idOf = new Map<number, string>();
  for (const session of conversation.sessions) {
    session.turns.forEach((turn, index) => {
      const evidenceId = normalizeEvidenceId(turn.dia_id);
      if (evidenceId === undefined) return;
      const id = docs.length + 1;
      const neighbours: string[] = [];
      for (let offset = -window; offset <= window; offset++) {
        const other = session.turns[index + offset];
        if (offset !== 0 && other) neighbours.push(contextText(other));
      }
      const doc: IndexedDocument = {
        namespace: "episode",
        id,
        scope: SCOPE,
        text: turnText(turn, session),
        speaker: turn.speaker,
      };
      if (neighbours.length > 0) doc.context = neighbours.join(" ");
      docs.push(doc);
      idOf.set(id, evidenceId);
    });
  }
  return { docs, idOf };
}

export async function runRetrievalBench(
  conversations: readonly Conversation[],
  options: RetrievalOptions = {},
): Promise<RetrievalReport> {
  const window = options.window ?? 1;
  const recalls: Record<number, number[]> = Object.fromEntries(RECALL_KS.map((k) => [k, [] as number[]]));
  const ndcgs: number[] = [];
  const byCategory = new Map<number, number[]>();
  const latencies: number[] = [];
  let documents = 0;
  let skipped = 0;
  for (const conversation of conversations) {
    skipped += conversation.skipped;
    const database = openMemoryDatabase();
    try {
      const index = new SearchIndex(database, options.search);
      const { docs, idOf } = conversationDocuments(conversation, window);
      index.upsertMany(docs);
      documents += docs.length;
      for (const question of conversation.questions) {
        const started = performance.now();
        const hits = await index.search(question.question, {
          namespace: "episode",
          scopes: [SCOPE],
          pool: 100,
        });
        latencies.push(performance.now() - started);
        const ranking = hits.map((hit) => idOf.get(hit.id) ?? "");
        const relevant = new Set(question.evidence);
        for (const k of RECALL_KS) recalls[k]?.push(recallAt(ranking, relevant, k));
        ndcgs.push(ndcgAt(ranking, relevant, 10));
        const list = byCategory.get(question.category) ?? [];
        list.push(recallAt(ranking, relevant, 10));
        byCategory.set(question.category, list);
      }
    } finally {
      database.close();
    }
  }
  const questions = ndcgs.length;
  if (questions === 0)
    throw new Error("the data has no question of categories 1-4 with valid evidence to measure");
  return {
    questions,
    recallAt: {
      "1": round(mean(recalls[1] ?? [])),
      "5": round(mean(recalls[5] ?? [])),
      "10": round(mean(recalls[10] ?? [])),
      "20": round(mean(recalls[20] ?? [])),
      "50": round(mean(recalls[50] ?? [])),
    },
    ndcgAt10: round(mean(ndcgs)),
    recallAt10ByCategory: Object.fromEntries(
      [...byCategory]
        .sort((a, b) => a[0] - b[0])
        .map(([category, values]) => [String(category), round(mean(values))]),
    ),
    latencyMs: { p50: round(percentile(latencies, 50), 2), p95: round(percentile(latencies, 95), 2) },
    conversations: conversations.length,
    documents,
    skippedQuestions: skipped,
  };
}

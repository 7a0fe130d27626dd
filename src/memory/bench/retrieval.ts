import { performance } from "node:perf_hooks";
import type { Conversation, Question } from "./locomo.js";
import { mean, ndcgAt, percentile, recallAt, round } from "./metrics.js";
import { mercuryRetriever, type Retriever } from "./retrievers.js";
import { type QuestionScore, questionScore } from "./splits.js";

export const RECALL_KS = [1, 5, 10, 20, 50] as const;

export interface RetrievalReport {
  questions: number;
  recallAt: Record<"1" | "5" | "10" | "20" | "50", number>;
  ndcgAt10: number;
  recallAt10ByCategory: Record<string, number>;
  /** nDCG@10 per category as well: the ablation compares features category by category. */
  ndcgAt10ByCategory: Record<string, number>;
  latencyMs: { p50: number; p95: number };
  conversations: number;
  documents: number;
  skippedQuestions: number;
}

/** Collects per-question scores into a report. */
export class RetrievalScores {
  private readonly recalls = new Map<number, number[]>(RECALL_KS.map((k) => [k, []]));
  private readonly ndcgs: number[] = [];
  private readonly recallByCategory = new Map<number, number[]>();
  private readonly ndcgByCategory = new Map<number, number[]>();
  readonly latencies: number[] = [];

  add(question: Question, ranking: readonly string[]): void {
    const relevant = new Set(question.evidence);
    for (const k of RECALL_KS) this.recalls.get(k)?.push(recallAt(ranking, relevant, k));
    const ndcg = ndcgAt(ranking, relevant, 10);
    this.ndcgs.push(ndcg);
    push(this.recallByCategory, question.category, recallAt(ranking, relevant, 10));
    push(this.ndcgByCategory, question.category, ndcg);
  }

  report(conversations: readonly Conversation[]): RetrievalReport {
    const questions = this.ndcgs.length;
    if (questions === 0)
      throw new Error("the data has no question of categories 1-4 with valid evidence to measure");
    const recall = (k: number) => round(mean(this.recalls.get(k) ?? []));
    return {
      questions,
      recallAt: { "1": recall(1), "5": recall(5), "10": recall(10), "20": recall(20), "50": recall(50) },
      ndcgAt10: round(mean(this.ndcgs)),
      recallAt10ByCategory: byCategory(this.recallByCategory),
      ndcgAt10ByCategory: byCategory(this.ndcgByCategory),
      latencyMs:
        this.latencies.length === 0
          ? { p50: 0, p95: 0 }
          : { p50: round(percentile(this.latencies, 50), 2), p95: round(percentile(this.latencies, 95), 2) },
      conversations: conversations.length,
      documents: conversations.reduce(
        (sum, conversation) =>
          sum + conversation.sessions.reduce((turns, session) => turns + session.turns.length, 0),
        0,
      ),
      skippedQuestions: conversations.reduce((sum, conversation) => sum + conversation.skipped, 0),
    };
  }
}

function push(map: Map<number, number[]>, key: number, value: number): void {
  const list = map.get(key) ?? [];
  list.push(value);
  map.set(key, list);
}

function byCategory(map: Map<number, number[]>): Record<string, number> {
  return Object.fromEntries(
    [...map].sort((a, b) => a[0] - b[0]).map(([category, values]) => [String(category), round(mean(values))]),
  );
}

/**
 * Every question of every conversation asked of a retriever loaded with that conversation alone
 * (shared/bench/README.md's metric). Latency is the search only, not the loading.
 */
export async function runRetrievalBench(
  conversations: readonly Conversation[],
  retrieverOf: (conversation: Conversation) => Retriever = (conversation) => mercuryRetriever(conversation),
  /** Filled with each question's recall@10 and nDCG@10, in order, for per-split comparisons (splits.ts). */
  perQuestion?: QuestionScore[],
): Promise<RetrievalReport> {
  const scores = new RetrievalScores();
  for (const conversation of conversations) {
    const retriever = retrieverOf(conversation);
    try {
      for (const question of conversation.questions) {
        const started = performance.now();
        const ranking = await retriever.search(question.question);
        scores.latencies.push(performance.now() - started);
        scores.add(question, ranking);
        if (perQuestion !== undefined) {
          const relevant = new Set(question.evidence);
          perQuestion.push(
            questionScore(
              conversation,
              question,
              recallAt(ranking, relevant, 10),
              ndcgAt(ranking, relevant, 10),
            ),
          );
        }
      }
    } finally {
      retriever.close();
    }
  }
  return scores.report(conversations);
}

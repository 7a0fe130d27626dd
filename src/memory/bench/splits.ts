import type { Conversation, Question } from "./locomo.js";
import { mean, round } from "./metrics.js";

/** One question's scores, with the splits it belongs to. */
export interface QuestionScore {
  conversation: string;
  category: number;
  type?: string;
  recallAt10: number;
  ndcgAt10: number;
}

export interface SplitScores {
  recallAt10: number;
  ndcgAt10: number;
}

/** Mercury against the plain-BM25 baseline on one split of a data set. */
export interface SplitComparison {
  split: string;
  questions: number;
  mercury: SplitScores;
  baseline: SplitScores;
  /** mercury / baseline; null when the baseline scores 0. */
  ratio: { recallAt10: number | null; ndcgAt10: number | null };
  /** True when Mercury is below the baseline on recall@10 or nDCG@10 on this split. */
  below: boolean;
}

export function questionScore(
  conversation: Conversation,
  question: Question,
  recallAt10: number,
  ndcgAt10: number,
): QuestionScore {
  const score: QuestionScore = {
    conversation: conversation.sampleId,
    category: question.category,
    recallAt10,
    ndcgAt10,
  };
  if (question.type !== undefined) score.type = question.type;
  return score;
}

/**
 * The splits a data set is reported on: all questions, each category, each source question type
 * (LongMemEval's), and each conversation when conversations hold several questions (LoCoMo's: one
 * conversation is a held-out set for a retriever with no per-conversation parameter).
 */
function splitKeys(score: QuestionScore, perConversation: boolean): string[] {
  const keys = ["all", `category ${score.category}`];
  if (score.type !== undefined) keys.push(`type ${score.type}`);
  if (perConversation) keys.push(`conversation ${score.conversation}`);
  return keys;
}

/**
 * Compares two runs over the same questions in the same order (Mercury's and the baseline's), split
 * by split. A split is "below" when Mercury's mean recall@10 or nDCG@10 there is lower than the
 * baseline's.
 */
export function compareSplits(
  mercury: readonly QuestionScore[],
  baseline: readonly QuestionScore[],
): SplitComparison[] {
  if (mercury.length !== baseline.length)
    throw new RangeError(`the two runs scored ${mercury.length} and ${baseline.length} questions`);
  const conversations = new Set(mercury.map((score) => score.conversation));
  const perConversation = conversations.size > 1 && mercury.length >= 5 * conversations.size;
  const groups = new Map<string, { mercury: QuestionScore[]; baseline: QuestionScore[] }>();
  mercury.forEach((score, index) => {
    const other = baseline[index] as QuestionScore;
    if (other.conversation !== score.conversation || other.category !== score.category)
      throw new RangeError(`question ${index} differs between the two runs`);
    for (const key of splitKeys(score, perConversation)) {
      const group = groups.get(key) ?? { mercury: [], baseline: [] };
      group.mercury.push(score);
      group.baseline.push(other);
      groups.set(key, group);
    }
  });
  // "all" first, then categories, types and conversations, each in name order.
  const kind = (key: string) => ["all", "category", "type", "conversation"].indexOf(key.split(" ")[0] ?? "");
  const ordered = [...groups].sort(([a], [b]) => kind(a) - kind(b) || a.localeCompare(b));
  return ordered.map(([split, group]) => {
    const ours = meansOf(group.mercury);
    const theirs = meansOf(group.baseline);
    return {
      split,
      questions: group.mercury.length,
      mercury: { recallAt10: round(ours.recallAt10), ndcgAt10: round(ours.ndcgAt10) },
      baseline: { recallAt10: round(theirs.recallAt10), ndcgAt10: round(theirs.ndcgAt10) },
      ratio: {
        recallAt10: ratio(ours.recallAt10, theirs.recallAt10),
        ndcgAt10: ratio(ours.ndcgAt10, theirs.ndcgAt10),
      },
      // Compared before rounding; a difference of a rounding error is not "below".
      below: ours.recallAt10 < theirs.recallAt10 - 1e-9 || ours.ndcgAt10 < theirs.ndcgAt10 - 1e-9,
    };
  });
}

function meansOf(scores: readonly QuestionScore[]): SplitScores {
  return {
    recallAt10: mean(scores.map((score) => score.recallAt10)),
    ndcgAt10: mean(scores.map((score) => score.ndcgAt10)),
  };
}

function ratio(ours: number, theirs: number): number | null {
  return theirs > 0 ? round(ours / theirs) : null;
}

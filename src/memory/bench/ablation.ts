import { DEFAULT_PRECISION } from "../search/precision.js";
import type { SearchIndexOptions } from "../search/search-index.js";
import { SESSION_WEIGHT } from "../search/sessions.js";
import type { Conversation } from "./locomo.js";
import { type RetrievalReport, RetrievalScores } from "./retrieval.js";
import { DEFAULT_DOCUMENTS, type DocumentOptions, loadConversation, searcherOf } from "./retrievers.js";

/**
 * Each tuned feature of the engine switched off (or, for an optional one, on) alone, against the
 * default configuration, on the same data: what `bench retrieval --ablation` reports. A feature
 * that helps one data set and hurts the other is reworked or removed (issue 12).
 */
export interface AblationVariant {
  name: string;
  /** What changes against the default. */
  change: string;
  documents?: Partial<DocumentOptions>;
  search?: SearchIndexOptions;
}

export const ABLATION_VARIANTS: readonly AblationVariant[] = [
  { name: "default", change: "every default feature on" },
  { name: "no-context", change: "neighbouring turns not indexed as context", documents: { window: 0 } },
  { name: "window-1", change: "one neighbouring turn each side instead of two", documents: { window: 1 } },
  {
    name: "uncapped-context",
    change: "a long context counts in full instead of being scaled down to CONTEXT_CAP terms",
    documents: { contextCap: Number.POSITIVE_INFINITY },
  },
  {
    name: "no-context-decay",
    change: "every neighbouring turn of the context weighs alike instead of contextDecay^(distance - 1)",
    documents: { contextDecay: 1 },
  },
  {
    name: "session",
    change: "session-level evidence on: a turn gains SESSION_WEIGHT x its session's best other candidate",
    search: { sessionWeight: SESSION_WEIGHT },
  },
  {
    name: "no-neighbours",
    change: "no neighbour smoothing (a short turn does not lean toward the adjacent candidate it answers)",
    search: { neighbourMu: 0 },
  },
  {
    name: "b-0.5",
    change: "BM25 length normalization b = 0.5 (the previous engine's) instead of 0.75",
    search: { bm25: { k1: 1.2, b: 0.5 } },
  },
  { name: "no-speaker", change: "no speaker- or role-aware reordering", search: { precision: false } },
  {
    name: "no-role",
    change: "no role-aware reordering (a first-person question does not favour the user's turns)",
    search: { precision: { ...DEFAULT_PRECISION, role: 0 } },
  },
  {
    name: "feedback",
    change: "pseudo-relevance feedback on (the previous engine's default)",
    search: { feedback: true },
  },
  {
    name: "no-expansion",
    change: "no related terms (kids/children, film/movie) added to the query",
    search: { expandQuery: false },
  },
  {
    name: "no-question-words",
    change: "answer-shape words (kind, type, how many, time) kept in the query",
    search: { questionWords: false },
  },
  {
    name: "speaker-text",
    change: "the speaker's name written into each turn's text (\"Ann: ...\"), as the old bench did",
    documents: { speakerText: true },
  },
  {
    name: "preceding-context",
    change: "only the turns before a turn as its context, not those after it",
    documents: { following: false },
  },
  {
    name: "no-time-words",
    change: "no words of the turn's time (weekday, day, month, year from occurredAt)",
    documents: { timeWords: false },
  },
  {
    name: "date-text",
    change: "the session date string written into each turn's text instead of time words (the old bench)",
    documents: { dateText: true, timeWords: false },
  },
];

export interface AblationRow {
  variant: string;
  change: string;
  report: RetrievalReport;
}

/** The variants grouped by the document setting they need: one store per group serves all of them. */
export function groupByDocuments<Variant extends Pick<AblationVariant, "documents">>(
  variants: readonly Variant[],
): { documents: DocumentOptions; variants: Variant[] }[] {
  const groups = new Map<string, { documents: DocumentOptions; variants: Variant[] }>();
  for (const variant of variants) {
    const documents = { ...DEFAULT_DOCUMENTS, ...variant.documents };
    const key = JSON.stringify(documents);
    const group = groups.get(key) ?? { documents, variants: [] };
    group.variants.push(variant);
    groups.set(key, group);
  }
  return [...groups.values()];
}

/**
 * Loads each conversation once per distinct document setting and runs every variant that shares it
 * on the same store, so the ablation costs a few loads rather than one per variant.
 */
export async function runAblation(
  conversations: readonly Conversation[],
  variants: readonly AblationVariant[] = ABLATION_VARIANTS,
): Promise<AblationRow[]> {
  const groups = groupByDocuments(variants);
  const scores = new Map(variants.map((variant) => [variant.name, new RetrievalScores()]));
  for (const conversation of conversations) {
    for (const group of groups) {
      const { database, idOf } = loadConversation(conversation, group.documents);
      try {
        for (const variant of group.variants) {
          const search = searcherOf(database, idOf, variant.search);
          const variantScores = scores.get(variant.name) as RetrievalScores;
          for (const question of conversation.questions)
            variantScores.add(question, await search(question.question));
        }
      } finally {
        database.close();
      }
    }
  }
  return variants.map((variant) => ({
    variant: variant.name,
    change: variant.change,
    report: (scores.get(variant.name) as RetrievalScores).report(conversations),
  }));
}

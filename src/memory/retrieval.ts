import type { Clock } from "../agent/clock.js";
import type { Episode, EpisodeRepository } from "./store/episodes.js";
import type { MemoryRepository } from "./store/memory-repo.js";
import { formatProfile, PROFILE_TOKENS } from "./store/profile.js";
import { rankRecalled } from "./store/ranking.js";
import { estimateTokens, formatRecall } from "./store/recall.js";
import type { MemoryIndex } from "./store/types.js";
import { type SearchResult, viewOf } from "./view.js";

/** What the read side of the memory needs: the index (with its word-search fallback) and the rows. */
export interface RetrievalDeps {
  index: MemoryIndex;
  memories: MemoryRepository;
  episodes: EpisodeRepository;
  clock: Clock;
}

/** Current memories relevant to the query, in ranked order (scoped to one person). */
export async function searchMemories(
  deps: RetrievalDeps,
  input: {
    userKey: string;
    query: string;
    limit?: number;
    includeSuperseded?: boolean;
    project?: string | null;
  },
): Promise<SearchResult[]> {
  const hits = await deps.index.search(input.query, {
    namespace: "memory",
    scopes: [input.userKey],
    pool: 100,
  });
  const found = deps.memories.getMany(hits.map((hit) => hit.id));
  const now = deps.clock.now();
  const candidates = hits.flatMap((hit) => {
    const memory = found.get(hit.id);
    if (!memory || memory.userKey !== input.userKey) return [];
    if (!input.includeSuperseded && memory.supersededAt !== null) return [];
    if (input.project !== undefined && memory.project !== null && memory.project !== input.project) return [];
    return [{ memory, relevance: hit.relevance }];
  });
  return rankRecalled(candidates, now, input.limit ?? 10).map((entry) => ({
    memory: viewOf(entry.memory, now),
    relevance: entry.relevance,
  }));
}

/** The always-present block of core facts and open conflicts (see store/profile.ts). */
export function profileSection(
  deps: RetrievalDeps,
  input: { userKey: string; tokenBudget?: number; project?: string | null },
): { section: string; memoryIds: number[] } {
  const current = deps.memories
    .list({ userKey: input.userKey })
    .filter(
      (memory) => memory.project === null || input.project === undefined || memory.project === input.project,
    );
  return formatProfile(current, deps.memories.conflicts(input.userKey), input.tokenBudget ?? PROFILE_TOKENS);
}

/**
 * The system-prompt section of relevant memories, within `tokenBudget` (ceil(chars/4) tokens).
 * Memories that go into the prompt are marked used, which keeps them in the active tier.
 */
export async function recallSection(
  deps: RetrievalDeps,
  input: { userKey: string; query: string; tokenBudget: number; project?: string | null },
): Promise<{ section: string; memoryIds: number[] }> {
  if (!Number.isInteger(input.tokenBudget) || input.tokenBudget < 0) {
    throw new RangeError(`tokenBudget must be a non-negative integer, got ${input.tokenBudget}`);
  }
  if (input.tokenBudget === 0) return { section: "", memoryIds: [] };
  // The profile comes first and whatever the query says: core facts never depend on word overlap.
  const profile = profileSection(deps, {
    userKey: input.userKey,
    tokenBudget: Math.min(PROFILE_TOKENS, input.tokenBudget),
    ...(input.project !== undefined ? { project: input.project } : {}),
  });
  const now = deps.clock.now();
  const rest = input.tokenBudget - estimateTokens(profile.section);
  let recalled: { section: string; memoryIds: number[] } = { section: "", memoryIds: [] };
  if (input.query.trim() !== "" && rest > 0) {
    const shown = new Set(profile.memoryIds);
    const results = await searchMemories(deps, {
      userKey: input.userKey,
      query: input.query,
      limit: 50,
      ...(input.project !== undefined ? { project: input.project } : {}),
    });
    recalled = formatRecall(
      results.map((result) => result.memory).filter((memory) => !shown.has(memory.id)),
      rest,
      now,
    );
  }
  const memoryIds = [...profile.memoryIds, ...recalled.memoryIds];
  deps.memories.markUsed(memoryIds, now.toISOString());
  return {
    section: [profile.section, recalled.section].filter((part) => part !== "").join("\n"),
    memoryIds,
  };
}

/** Archived conversation turns relevant to the query (scoped to one person). */
export async function searchEpisodes(
  deps: RetrievalDeps,
  input: { userKey: string; query: string; limit?: number },
): Promise<{ episode: Episode; relevance: number }[]> {
  const hits = await deps.index.search(input.query, {
    namespace: "episode",
    scopes: [input.userKey],
    pool: 100,
  });
  const found = deps.episodes.getMany(hits.map((hit) => hit.id));
  return hits
    .flatMap((hit) => {
      const episode = found.get(hit.id);
      return episode && episode.userKey === input.userKey ? [{ episode, relevance: hit.relevance }] : [];
    })
    .slice(0, input.limit ?? 10);
}

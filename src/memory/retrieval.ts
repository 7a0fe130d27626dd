import type { Clock } from "../agent/clock.js";
import type { Episode, EpisodeRepository } from "./store/episodes.js";
import type { MemoryRepository } from "./store/memory-repo.js";
import { rankRecalled } from "./store/ranking.js";
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

import type { RetrievalDeps } from "./retrieval.js";
import { searchMemories } from "./retrieval.js";
import { formatProfile, PROFILE_TOKENS } from "./store/profile.js";
import { estimateTokens, formatRecall } from "./store/recall.js";

// The prompt sections (profile and recall) apart from retrieval.ts: `mercury memory search` reads
// memories but never builds a prompt, so it does not load the profile and recall formatting
// (issue 11, memory-command latency). MemoryCore.recall imports this module when first called.

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

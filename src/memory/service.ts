import { resolveConflict } from "./conflict-resolution.js";
import { editMemory } from "./edit.js";
import { claimedBy } from "./extraction/attribution.js";
import { type ForgetResult, forgetMemory } from "./forget.js";
import { profileSection } from "./recall-section.js";
import { MemoryCore } from "./service-core.js";
import { type SourceTurn, sourceTurns } from "./store/provenance.js";
import { collectStats, type MemoryStats } from "./store/stats.js";
import type { MemoryVersion } from "./store/types.js";
import { recentUserTexts, userSaidRecently } from "./store/user-words.js";
import { type DecayResult, runDecay } from "./tiers.js";
import { type MemoryView, viewOf } from "./view.js";

export { MemoryCore } from "./service-core.js";
export type { MemoryServiceOptions, RememberInput } from "./service-options.js";
export type { MemoryView, SearchResult } from "./view.js";
export type { MemoryStats };

/** The facade over the memory store: the agent, the tools, the dashboard and the CLI go through here. */
export class MemoryService extends MemoryCore {
  /** A user's edit: a new version with manual evidence; the wording is the user's. */
  edit(id: number, userKey: string, text: string): MemoryView {
    const { before, after } = editMemory(
      { database: this.database, memories: this.memories, index: this.index },
      { id, userKey, text, at: this.clock.now().toISOString() },
    );
    this.emit({ kind: "updated", userKey, text: `Updated: ${after.text} (was: ${before.text})` });
    return viewOf(after, this.clock.now());
  }

  /** Erases a memory and every trace of its text (see forget.ts). Only its owner can. */
  forget(id: number, userKey: string): ForgetResult {
    const result = forgetMemory(
      {
        database: this.database,
        memories: this.memories,
        index: this.index,
        ...(this.options.log ? { log: this.options.log } : {}),
        ...(this.options.databaseCopies ? { databaseCopies: this.options.databaseCopies } : {}),
      },
      id,
      userKey,
      this.clock.now().toISOString(),
    );
    this.emit({ kind: "forgotten", userKey, memoryId: id, text: `Forgotten: memory #${id}` });
    return result;
  }

  /** Where a memory came from: the source turns (speaker, date) and every version. */
  why(id: number, userKey: string): { memory: MemoryView; sources: SourceTurn[]; versions: MemoryVersion[] } {
    const memory = this.memories.getForUser(id, userKey);
    const versions = this.memories.versions(id);
    return {
      memory: viewOf(memory, this.clock.now()),
      sources: sourceTurns(this.database, userKey, memory, versions),
      versions,
    };
  }

  /** Settles the open conflicts of a memory: keep one, or both (see conflict-resolution.ts). */
  resolveConflict(
    id: number,
    userKey: string,
    keep: number | "both",
  ): { kept: number[]; superseded: number[]; resolved: number } {
    const result = resolveConflict(
      { database: this.database, memories: this.memories },
      { id, userKey, keep, at: this.clock.now().toISOString() },
    );
    this.emit({ kind: "updated", userKey, memoryId: id, text: `Resolved conflict of memory #${id}` });
    return result;
  }

  /**
   * The always-present block of core facts and open conflicts (see store/profile.ts). Here, not in
   * MemoryCore: only the agent's prompt asks for it, never `memory add|search`.
   */
  profile(input: { userKey: string; tokenBudget?: number; project?: string | null }): {
    section: string;
    memoryIds: number[];
  } {
    return profileSection(this.retrievalDeps(), input);
  }

  runDecay(now: Date = this.clock.now()): DecayResult {
    return runDecay(this.database, now);
  }

  /**
   * For memory_save: did this user say the quote in this session's latest messages — and, given the
   * fact, say it there as their own plain claim (see extraction/attribution.ts `claimedBy`)?
   */
  userSaidRecently(input: { sessionId: string; userKey: string; quote: string; factText?: string }): boolean {
    if (input.factText === undefined) return userSaidRecently(this.database, input);
    const { factText } = input;
    return recentUserTexts(this.database, input).some((text) => claimedBy(text, input.quote, factText));
  }

  stats(userKey: string | null): MemoryStats {
    return collectStats(this.memories, this.jobs, userKey, this.judgeQueue);
  }
}

import { confidence } from "./confidence.js";
import type { Memory } from "./store/types.js";

export interface MemoryView extends Memory {
  /** Derived from evidence by confidence(); never stored. */
  confidence: number;
}

export interface SearchResult {
  memory: MemoryView;
  relevance: number;
}

/** A memory as shown to people and tools: with its confidence computed now. */
export function viewOf(memory: Memory, now: Date): MemoryView {
  return {
    ...memory,
    confidence: confidence(
      {
        evidence: memory.evidence,
        confirmations: memory.confirmations,
        contradictions: memory.contradictions,
        lastConfirmedAt: memory.lastConfirmedAt ?? memory.createdAt,
      },
      now,
    ),
  };
}

/** The text of a memory as the user gave it: trimmed, not empty, under 2000 characters. */
export function requireText(text: string, what: string): string {
  const trimmed = text.trim();
  if (trimmed === "") throw new RangeError(`${what} is empty: give the text to remember`);
  if (trimmed.length > 2000)
    throw new RangeError(`${what} is ${trimmed.length} characters; keep a memory under 2000`);
  return trimmed;
}

import type { SqliteDatabase } from "../storage/database.js";
import type { MemoryRepository } from "./store/memory-repo.js";
import type { Memory, MemoryIndex } from "./store/types.js";
import { requireText } from "./view.js";

/** A user's edit: a new version with manual evidence; the wording is the user's. */
export function editMemory(
  deps: { database: SqliteDatabase; memories: MemoryRepository; index: MemoryIndex },
  input: { id: number; userKey: string; text: string; at: string },
): { before: Memory; after: Memory } {
  const { id, at } = input;
  const before = deps.memories.getForUser(id, input.userKey);
  const newText = requireText(input.text, "the new text");
  const after = deps.database.transaction(() => {
    deps.memories.addVersion(id, {
      text: newText,
      kind: before.kind,
      importance: before.importance,
      evidence: "manual",
      reason: "edited",
      sessionId: null,
      messageIds: [],
      quote: null,
      at,
    });
    const memory = deps.memories.update(
      id,
      { text: newText, wordingEvidence: "manual", evidence: "manual", lastConfirmedAt: at, tier: "active" },
      at,
    );
    deps.index.upsert({ namespace: "memory", id, scope: memory.userKey, text: memory.text });
    return memory;
  })();
  return { before, after };
}

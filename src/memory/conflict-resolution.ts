import type { SqliteDatabase } from "../storage/database.js";
import type { MemoryRepository } from "./store/memory-repo.js";

/**
 * Settles the open conflicts of a memory: keep one (the other is superseded by it, its validity
 * closed now) or keep both (the conflict is marked resolved, both stay current).
 */
export function resolveConflict(
  deps: { database: SqliteDatabase; memories: MemoryRepository },
  input: { id: number; userKey: string; keep: number | "both"; at: string },
): { kept: number[]; superseded: number[]; resolved: number } {
  const { database, memories } = deps;
  const { id, userKey, keep, at } = input;
  memories.getForUser(id, userKey);
  const open = memories.conflicts(userKey).filter((conflict) => conflict.a.id === id || conflict.b.id === id);
  if (open.length === 0)
    throw new RangeError(`memory #${id} has no open conflict; see \`mercury memory conflicts\``);
  const involved = new Set(open.flatMap((conflict) => [conflict.a.id, conflict.b.id]));
  if (keep !== "both" && !involved.has(keep)) {
    throw new RangeError(
      `--keep must be "both" or one of ${[...involved].map((n) => `#${n}`).join(", ")}; got #${keep}`,
    );
  }
  const superseded: number[] = [];
  database.transaction(() => {
    for (const conflict of open) {
      database.prepare("UPDATE memory_conflicts SET resolved_at = ? WHERE id = ?").run(at, conflict.id);
      if (keep === "both") continue;
      const winner = conflict.a.id === keep ? conflict.a : conflict.b.id === keep ? conflict.b : undefined;
      const loser = winner === conflict.a ? conflict.b : conflict.a;
      if (!winner || loser.supersededAt !== null) continue;
      memories.addVersion(loser.id, {
        text: loser.text,
        kind: loser.kind,
        importance: loser.importance,
        evidence: loser.evidence,
        reason: "superseded",
        sessionId: null,
        messageIds: [],
        quote: null,
        at,
      });
      memories.update(loser.id, { supersededAt: at, supersededBy: winner.id, validTo: at }, at);
      superseded.push(loser.id);
    }
  })();
  return {
    kept: keep === "both" ? [...involved] : [keep],
    superseded,
    resolved: open.length,
  };
}

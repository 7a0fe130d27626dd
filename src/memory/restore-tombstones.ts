import Database from "better-sqlite3";
import type { Tombstone } from "../storage/backup.js";
import type { SqliteDatabase } from "../storage/database.js";
import { SearchIndex } from "./search/search-index.js";
import { MemoryRepository } from "./store/memory-repo.js";
import { applyTombstones } from "./store/redaction.js";

/**
 * Forgets again, in a database restored from a backup, every memory the user forgot after that
 * backup was taken: the same purge as `forget` (search index, the row, its versions and echoes in
 * other memories' histories), ending with the tombstone, then redacts again the transcript turns and
 * episodes the previous database had redacted. Installed by `mercury backup restore`.
 */
export function purgeForgottenMemories(
  restored: SqliteDatabase,
  tombstones: readonly Tombstone[],
  previousPath: string | null = null,
): void {
  const index = new SearchIndex(restored);
  const memories = new MemoryRepository(restored);
  restored.pragma("secure_delete = ON");
  restored.transaction(() => {
    for (const tombstone of tombstones) {
      index.remove("memory", tombstone.memory_id);
      memories.delete(tombstone.memory_id, tombstone.user_key, tombstone.deleted_at);
    }
  })();
  if (previousPath === null) return;
  // The transcript turns and archived episodes those forgets redacted come back with the backup:
  // redact them again, by id, from the previous database's record of redactions.
  const previous = new Database(previousPath, { readonly: true, fileMustExist: true });
  try {
    applyTombstones(previous, restored, index);
  } finally {
    previous.close();
  }
}

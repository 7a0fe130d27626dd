import type { Tombstone } from "../storage/backup.js";
import type { SqliteDatabase } from "../storage/database.js";
import { SearchIndex } from "./search/search-index.js";
import { MemoryRepository } from "./store/memory-repo.js";

/**
 * Forgets again, in a database restored from a backup, every memory the user forgot after that
 * backup was taken: the same purge as `forget` (search index, the row, its versions and echoes in
 * other memories' histories), ending with the tombstone. Installed by `mercury backup restore`.
 */
export function purgeForgottenMemories(restored: SqliteDatabase, tombstones: readonly Tombstone[]): void {
  const index = new SearchIndex(restored);
  const memories = new MemoryRepository(restored);
  restored.transaction(() => {
    for (const tombstone of tombstones) {
      index.remove("memory", tombstone.memory_id);
      memories.delete(tombstone.memory_id, tombstone.user_key, tombstone.deleted_at);
    }
  })();
}

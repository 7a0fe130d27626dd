import { coreMigration } from "./001-core.js";
import { searchIndexMigration } from "./002-search-index.js";
import { memoryMigration } from "./003-memory.js";
import { permissionsMigration } from "./004-permissions.js";
import { telegramMigration } from "./005-telegram.js";
import { ledgerMigration } from "./006-ledger.js";
import { taskEvidenceMigration } from "./007-task-evidence.js";
import { schedulerMigration } from "./008-scheduler.js";
import { memoryIntegrityMigration } from "./009-memory-integrity.js";
import { skillsMigration } from "./010-skills.js";
import { fts5SearchMigration } from "./011-fts5-search.js";
import { episodeContextMigration } from "./012-episode-context.js";
import type { Migration } from "./types.js";

/**
 * Every schema change, in order. `version` must equal the index + 1: the database records the
 * highest applied version in `PRAGMA user_version`, and a database whose version is above the
 * last entry here was written by a newer Mercury and is refused.
 */
export const migrations: readonly Migration[] = [
  coreMigration,
  searchIndexMigration,
  memoryMigration,
  permissionsMigration,
  telegramMigration,
  ledgerMigration,
  taskEvidenceMigration,
  schedulerMigration,
  memoryIntegrityMigration,
  skillsMigration,
  fts5SearchMigration,
  episodeContextMigration,
];

import type { Migration } from "./types.js";

/** Telegram access (owner, members, pairing codes), update offset and outgoing delivery records. */
export const telegramMigration: Migration = {
  version: 5,
  name: "telegram",
  up(database) {
    database.exec(`
      -- Everyone who may talk to the bot. role 'owner' maps to userKey "owner"; members to
      -- "telegram:<id>". A revoked row is kept so 'list' can show who lost access and when.
      CREATE TABLE telegram_users (
        user_id INTEGER PRIMARY KEY,
        role TEXT NOT NULL CHECK (role IN ('owner','member')),
        username TEXT,
        approved_at TEXT NOT NULL,
        revoked_at TEXT
      );

      -- Pairing codes are stored hashed (sha256): reading the database does not reveal a live code.
      CREATE TABLE telegram_pairing_codes (
        code_hash TEXT PRIMARY KEY,
        created_at TEXT NOT NULL,
        expires_at TEXT NOT NULL,
        used_at TEXT,
        used_by INTEGER
      );

      -- One row per outgoing final message part, so a reply interrupted by a crash is sent once.
      CREATE TABLE telegram_deliveries (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        chat_id INTEGER NOT NULL,
        task_id TEXT NOT NULL,
        part INTEGER NOT NULL,
        text_hash TEXT NOT NULL,
        text TEXT NOT NULL,
        status TEXT NOT NULL CHECK (status IN ('pending','sent','failed')),
        attempts INTEGER NOT NULL DEFAULT 0,
        last_error TEXT,
        message_id INTEGER,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        UNIQUE (chat_id, task_id, part, text_hash)
      );
      CREATE INDEX telegram_deliveries_status ON telegram_deliveries(status, id);

      -- Which chat a task started from, so its reply (and its approvals) reach that chat after a restart.
      CREATE TABLE telegram_tasks (
        task_id TEXT PRIMARY KEY,
        chat_id INTEGER NOT NULL,
        user_key TEXT NOT NULL,
        created_at TEXT NOT NULL
      );

      -- The next getUpdates offset, so updates handled before a crash are not handled again.
      CREATE TABLE telegram_state (
        key TEXT PRIMARY KEY,
        value TEXT NOT NULL
      );
    `);
  },
};

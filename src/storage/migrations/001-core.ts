import type { Migration } from "./types.js";

export const coreMigration: Migration = {
  version: 1,
  name: "core",
  up(database) {
    database.exec(`
      CREATE TABLE sessions (
        id TEXT PRIMARY KEY,
        user_key TEXT NOT NULL,
        channel TEXT NOT NULL,
        title TEXT,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
      );
      CREATE INDEX sessions_user ON sessions(user_key, updated_at);

      -- One row per model message (user, assistant, tool), in order. content is the JSON of the
      -- provider-neutral message so a restarted process replays tool calls and results exactly.
      CREATE TABLE messages (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
        task_id TEXT,
        role TEXT NOT NULL CHECK (role IN ('user','assistant','tool','system')),
        content TEXT NOT NULL,
        token_estimate INTEGER NOT NULL,
        created_at TEXT NOT NULL
      );
      CREATE INDEX messages_session ON messages(session_id, id);

      -- Every model attempt, successful or not, so budgets count what was really spent.
      CREATE TABLE usage_records (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        day TEXT NOT NULL,
        session_id TEXT,
        task_id TEXT,
        provider TEXT NOT NULL,
        model TEXT NOT NULL,
        input_tokens INTEGER NOT NULL,
        output_tokens INTEGER NOT NULL,
        cost_usd REAL NOT NULL,
        succeeded INTEGER NOT NULL,
        created_at TEXT NOT NULL
      );
      CREATE INDEX usage_day ON usage_records(day);

      CREATE TABLE settings (
        key TEXT PRIMARY KEY,
        value TEXT NOT NULL
      );
    `);
  },
};

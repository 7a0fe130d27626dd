import type { Clock } from "../agent/clock.js";
import type { SqliteDatabase } from "../storage/database.js";
import type { MemoryModel } from "./extraction/model.js";
import type { EvidenceKind, Importance, MemoryIndex, MemoryKind, ReceiptListener } from "./store/types.js";

export interface MemoryServiceOptions {
  database: SqliteDatabase;
  index: MemoryIndex;
  clock?: Clock;
  /** Extraction model. Without one, jobs stay queued (visible in stats) until one is configured. */
  model?: MemoryModel;
  /** Lets the model judge same/contradicts/unrelated; the deterministic rules decide otherwise. */
  judgeWithModel?: boolean;
  /** Asked before every extraction; false keeps jobs queued. */
  canSpend?: () => boolean;
  onReceipt?: ReceiptListener;
  log?(level: "info" | "warn" | "error", message: string): void;
  /**
   * A word-only index over the same database, used when the configured embedder fails (server down):
   * search and consolidation go on with word search and a visible notice, never a crash.
   */
  wordIndex?: MemoryIndex;
  /** Embeds what was just written (memory add stores its vector); failures become notices. */
  embedPending?: () => Promise<number>;
  /**
   * Paths of other copies of the database on disk (the backups under MERCURY_HOME): a forget is
   * applied to them too, so no file keeps the forgotten text.
   */
  databaseCopies?: () => string[];
  /** Shown to the person (CLI stderr, chat notice): degraded service they should know about. */
  onNotice?(message: string): void;
}

export interface RememberInput {
  userKey: string;
  text: string;
  kind: MemoryKind;
  importance: Importance;
  evidence: EvidenceKind;
  project?: string | null;
  sessionId?: string | null;
  messageIds?: number[];
  quote?: string | null;
  validFrom?: string | null;
}

import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import type { MemoryModel } from "../memory/extraction/model.js";
import { embedderFromEnv } from "../memory/search/embedder-config.js";
import { SearchIndex } from "../memory/search/search-index.js";
import type { SearchIndexCore } from "../memory/search/search-index-core.js";
import { MemoryService } from "../memory/service.js";
import type { ModelMessage, ModelStepper } from "../model/types.js";
import { listBackups } from "../storage/backup.js";
import { backupsDirectory } from "../storage/backup-schedule.js";
import type { UsageStore } from "../storage/usage.js";
import {
  type Embeddings,
  embedderOrConfigError,
  embeddingsConfigured,
  type MemoryWiring,
  memoryServiceOptions,
} from "./memory-wiring.js";

export type { MemoryWiring } from "./memory-wiring.js";

/** The copies of mercury.db that a forget must reach: the backups and the files kept by restores. */
function databaseCopies(home: string): string[] {
  const kept = existsSync(home)
    ? readdirSync(home)
        .filter((name) => /^mercury\.db\.before-restore-/.test(name) && !/-(?:wal|shm|journal)$/.test(name))
        .map((name) => join(home, name))
    : [];
  return [...listBackups(backupsDirectory(home)).map((entry) => entry.path), ...kept];
}

/**
 * Extraction and the model judge go through the same provider chain as the agent, and their usage
 * is billed like any other call, so the budget sees them.
 */
export function memoryModelOver(chain: ModelStepper, usage: UsageStore): MemoryModel {
  return {
    async complete(request) {
      const result = await chain.step(
        {
          system: request.system,
          messages: [{ role: "user", content: request.prompt }],
          tools: [],
          maxOutputTokens: 2000,
        },
        request.signal ?? new AbortController().signal,
      );
      usage.record(result.attempts, null, null);
      if (result.ok) return { ok: true, text: result.text };
      return {
        ok: false,
        retryable:
          result.kind !== "aborted" &&
          (result.kind === "interrupted" || result.failures.some((failure) => failure.retryable)),
        cause: result.message,
      };
    },
  };
}

/** The memory service and the search index under it (the index computes vectors in the background). */
export interface MemoryParts {
  service: MemoryService;
  index: SearchIndexCore;
}

/** The configured embeddings, read synchronously (the app is composed synchronously). */
function embeddingsFromEnv(wiring: MemoryWiring): Embeddings | undefined {
  if (!embeddingsConfigured(wiring.env)) return undefined;
  const embedder = embedderOrConfigError(() =>
    embedderFromEnv(wiring.env, { interactive: wiring.interactive === true }),
  );
  return embedder ? { embedder, index: (database) => new SearchIndex(database, { embedder }) } : undefined;
}

/**
 * The full service. `embeddings` are the ones the caller already resolved (`loadEmbeddings`, as the
 * memory commands do); without them they are read from the environment here.
 */
export function createMemoryService(
  wiring: MemoryWiring,
  embeddings: Embeddings | undefined = embeddingsFromEnv(wiring),
): MemoryParts {
  const { options, index } = memoryServiceOptions(wiring, embeddings);
  // A forget reaches the backups under MERCURY_HOME and a restore's kept file too.
  const service = new MemoryService({ ...options, databaseCopies: () => databaseCopies(wiring.config.home) });
  return { service, index };
}

/**
 * Continuation lines are indented, so only a real turn starts a line with "User:" — an answer that
 * contains a line "User: I am a pilot" cannot pass as the user's own words (attribution reads turns).
 */
function indentContinuation(text: string): string {
  return text.replace(/\r?\n/g, "\n  ");
}

/** The visible text of a user or assistant message ("" for other roles and non-text parts). */
export function messageText(message: ModelMessage): string {
  if (message.role !== "user" && message.role !== "assistant") return "";
  return typeof message.content === "string"
    ? message.content
    : message.content.map((part) => (part.type === "text" ? part.text : "")).join("");
}

/** The text of a task's messages for extraction: what the user said and what the agent answered. */
export function transcriptExcerpt(messages: readonly ModelMessage[]): string {
  const lines: string[] = [];
  for (const message of messages) {
    const text = messageText(message);
    if (text.trim() === "") continue;
    if (message.role === "user") lines.push(`User: ${indentContinuation(text)}`);
    else if (message.role === "assistant") lines.push(`Assistant: ${indentContinuation(text)}`);
  }
  return lines.join("\n");
}

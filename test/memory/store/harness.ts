import type { Clock } from "../../../src/agent/clock.js";
import type { MemoryModel, MemoryModelResult } from "../../../src/memory/extraction/model.js";
import { SearchIndex, type SearchIndexOptions } from "../../../src/memory/search/search-index.js";
import { MemoryService, type MemoryServiceOptions } from "../../../src/memory/service.js";
import type { Receipt } from "../../../src/memory/store/types.js";
import { openMemoryDatabase, type SqliteDatabase } from "../../../src/storage/database.js";

export class ManualClock implements Clock {
  constructor(private current: Date = new Date("2026-01-01T12:00:00.000Z")) {}
  now(): Date {
    return new Date(this.current);
  }
  advanceDays(days: number): void {
    this.current = new Date(this.current.getTime() + days * 86_400_000);
  }
  advanceMs(ms: number): void {
    this.current = new Date(this.current.getTime() + ms);
  }
}

/** A model that answers from a script, recording every request it got. */
export class ScriptedModel implements MemoryModel {
  readonly requests: { system: string; prompt: string }[] = [];
  constructor(
    private readonly answer: (request: { system: string; prompt: string }, call: number) => MemoryModelResult,
  ) {}
  async complete(request: {
    system: string;
    prompt: string;
    signal?: AbortSignal;
  }): Promise<MemoryModelResult> {
    this.requests.push({ system: request.system, prompt: request.prompt });
    return this.answer(request, this.requests.length);
  }
}

export interface Harness {
  database: SqliteDatabase;
  index: SearchIndex;
  service: MemoryService;
  clock: ManualClock;
  receipts: Receipt[];
}

export function makeHarness(
  options: Partial<Omit<MemoryServiceOptions, "database" | "index">> = {},
  indexOptions: SearchIndexOptions = {},
): Harness {
  const database = openMemoryDatabase();
  const index = new SearchIndex(database, indexOptions);
  const clock = options.clock instanceof ManualClock ? options.clock : new ManualClock();
  const receipts: Receipt[] = [];
  const service = new MemoryService({
    ...options,
    database,
    index,
    clock,
    onReceipt: (receipt) => receipts.push(receipt),
  });
  return { database, index, service, clock, receipts };
}

/** Every user table's rows, as text, to prove something is nowhere. */
export function dumpAllTables(database: SqliteDatabase): string {
  const tables = database
    .prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
    .all() as { name: string }[];
  const parts: string[] = [];
  for (const { name } of tables) {
    const rows = database.prepare(`SELECT * FROM "${name}"`).all() as Record<string, unknown>[];
    for (const row of rows) {
      for (const value of Object.values(row)) {
        if (Buffer.isBuffer(value)) parts.push(value.toString("latin1"));
        else parts.push(String(value));
      }
    }
  }
  return parts.join("\n");
}

/** A scripted judge answering, for each stored statement in the batched prompt, what `decide` says. */
export function verdictJudge(decide: (said: string, stored: string) => string): ScriptedModel {
  return new ScriptedModel((request) => {
    const said = /^NEW: (.*)$/m.exec(request.prompt)?.[1] ?? "";
    const judgements = [...request.prompt.matchAll(/^\[(\d+)\] (.*)$/gm)].map((match) => ({
      id: Number(match[1]),
      verdict: decide(said, match[2] ?? ""),
      reason: "scripted",
    }));
    return { ok: true, text: JSON.stringify({ judgements }) };
  });
}

import { ConfigError } from "../../config/errors.js";
import type { ConsolidationOutcome } from "../../memory/consolidation/consolidate.js";
import type { MemoryView } from "../../memory/service.js";
import type { MemoryCore } from "../../memory/service-core.js";
import { MemoryNotFoundError } from "../../memory/store/memory-repo.js";
import {
  IMPORTANCE_LEVELS,
  type Importance,
  MEMORY_KINDS,
  type MemoryKind,
} from "../../memory/store/types.js";

// What the memory commands share with their fast path (memory-fast.ts): running a command and
// printing its result, the option tables, and the two commands run most (add, search). Nothing
// here loads commander.

export interface MemoryCommandIo {
  stdout?: (text: string) => void;
  stderr?: (text: string) => void;
}

/** A bad flag or argument: exit code 2. */
export class UsageError extends Error {
  override name = "UsageError";
}

/** A command that could not do its work (a bad import file): exit code 1. */
export class CommandFailure extends Error {
  override name = "CommandFailure";
}

export function oneOf<T extends string>(
  value: string | undefined,
  allowed: readonly T[],
  flag: string,
): T | undefined {
  if (value === undefined) return undefined;
  if ((allowed as readonly string[]).includes(value)) return value as T;
  throw new UsageError(`${flag} must be one of ${allowed.join(", ")}; got "${value}"`);
}

export function positiveInt(raw: string, what: string): number {
  if (!/^\d{1,15}$/.test(raw.trim()) || Number(raw) <= 0) {
    throw new UsageError(`${what} must be a positive whole number; got "${raw}"`);
  }
  return Number(raw);
}

/**
 * A memory's status. A superseded memory whose replacement is gone was replaced by a memory since
 * forgotten (forget is the only delete; the reference is set to null): said so, without its text.
 */
export function statusOf(memory: Pick<MemoryView, "supersededAt" | "supersededBy" | "tier">): string {
  if (!memory.supersededAt) return memory.tier;
  return memory.supersededBy === null
    ? "superseded by a forgotten memory"
    : `superseded by #${memory.supersededBy}`;
}

export function line(memory: MemoryView): string {
  const status = statusOf(memory);
  return `#${memory.id} [${memory.kind}] ${memory.text} — ${memory.evidence}, confidence ${memory.confidence.toFixed(2)}, confirmed ${memory.confirmations}×, ${memory.importance}, ${status}`;
}

function outcomeText(outcome: ConsolidationOutcome): string {
  switch (outcome.action) {
    case "created":
      return outcome.queued
        ? `Remembered: ${outcome.memory.text} (#${outcome.memory.id}); the model judge failed, so its comparison with similar memories waits in the judge queue (\`mercury memory stats\`)`
        : `Remembered: ${outcome.memory.text} (#${outcome.memory.id})`;
    case "confirmed":
      return `Confirmed: ${outcome.memory.text} (#${outcome.memory.id}, ${outcome.memory.confirmations}×)`;
    case "superseded":
      return `Updated: ${outcome.memory.text} (#${outcome.memory.id}) (was: ${outcome.previous.text})`;
    case "kept-existing":
      return `Kept: ${outcome.memory.text} (#${outcome.memory.id}); the new claim was set aside: ${outcome.rule}`;
    case "conflict":
      return `Remembered: ${outcome.memory.text} (#${outcome.memory.id}), in conflict with #${outcome.other.id}: ${outcome.other.text}`;
  }
}

export interface Common {
  json?: boolean;
  user: string;
}

export type MemoryRun<O extends Common, A extends unknown[], S extends MemoryCore = MemoryCore> = (
  service: S,
  options: O,
  ...args: A
) => Promise<{ json: unknown; text: string }>;

/**
 * Runs one memory command and prints its result; a known failure (bad flag, no such memory, bad
 * import file) is printed with its exit code, anything else is thrown to the program's reporter.
 * Shared by the commander actions and the fast path (memory-fast.ts).
 */
export async function runMemoryCommand<S extends MemoryCore, O extends Common, A extends unknown[]>(
  openService: () => Promise<S>,
  io: Required<MemoryCommandIo>,
  run: MemoryRun<O, A, S>,
  options: O,
  args: A,
): Promise<void> {
  try {
    const service = await openService();
    const result = await run(service, options, ...args);
    // Degraded service (embeddings down) is said, on stderr so --json stays one document.
    for (const notice of service.notices) io.stderr(`notice: ${notice}\n`);
    io.stdout(
      options.json
        ? `${JSON.stringify(result.json)}\n`
        : result.text.endsWith("\n")
          ? result.text
          : `${result.text}\n`,
    );
    process.exitCode = 0;
  } catch (error) {
    const usage = error instanceof UsageError;
    const known = usage || error instanceof MemoryNotFoundError || error instanceof CommandFailure;
    // A config.yaml the command cannot start with: the program's reporter says it on stderr (exit 2);
    // a script that asked for JSON still gets its one document.
    if (error instanceof ConfigError && options.json)
      io.stdout(`${JSON.stringify({ ok: false, error: error.message })}\n`);
    if (!known && !(error instanceof RangeError)) throw error;
    const message = error instanceof Error ? error.message : String(error);
    if (options.json) io.stdout(`${JSON.stringify({ ok: false, error: message })}\n`);
    io.stderr(`${message}\n`);
    process.exitCode = usage || error instanceof RangeError ? 2 : 1;
  }
}

/** One option as commander declares it ("--limit <n>"): the one table both parsers read. */
export interface OptionSpec {
  flags: string;
  description: string;
  defaultValue?: string;
}

export const COMMON_OPTIONS: readonly OptionSpec[] = [
  { flags: "--json", description: "print one JSON document" },
  { flags: "--user <key>", description: "whose memory (owner, telegram:<id>)", defaultValue: "owner" },
];

export const ADD_OPTIONS: readonly OptionSpec[] = [
  { flags: "--kind <kind>", description: `one of ${MEMORY_KINDS.join(", ")}`, defaultValue: "fact" },
  {
    flags: "--importance <level>",
    description: `one of ${IMPORTANCE_LEVELS.join(", ")}`,
    defaultValue: "normal",
  },
  { flags: "--project <name>", description: "only for this project" },
];

export const SEARCH_OPTIONS: readonly OptionSpec[] = [
  { flags: "--limit <n>", description: "how many", defaultValue: "10" },
  { flags: "--all", description: "include superseded memories" },
  { flags: "--episodes", description: "also search past conversation turns" },
  {
    flags: "--as-of <date>",
    description: "what was believed then (recorded by then, not yet superseded)",
  },
];

export type AddOptions = Common & { kind: string; importance: string; project?: string };
export type SearchOptions = Common & { limit: string; all?: boolean; episodes?: boolean; asOf?: string };

/** `memory add`: consolidation against what is stored, then the vector when embeddings are on. */
export async function addMemory(service: MemoryCore, options: AddOptions, words: string[]) {
  const outcome = await service.remember({
    userKey: options.user,
    text: words.join(" "),
    kind: oneOf<MemoryKind>(options.kind, MEMORY_KINDS, "--kind") ?? "fact",
    importance: oneOf<Importance>(options.importance, IMPORTANCE_LEVELS, "--importance") ?? "normal",
    evidence: "manual",
    project: options.project ?? null,
  });
  return {
    json: {
      ok: true,
      action: outcome.action,
      memory: service.show(outcome.memory.id, options.user),
      waitingForJudge: outcome.action === "created" && outcome.queued === true,
    },
    text: outcomeText(outcome),
  };
}

/** `memory search`: ranked current memories (and with --as-of, what was believed then). */
export async function searchMemories(service: MemoryCore, options: SearchOptions, words: string[]) {
  const query = words.join(" ");
  const limit = positiveInt(options.limit, "--limit");
  // Loaded only for --as-of: a plain search never reads validity intervals.
  const provenance =
    options.asOf === undefined ? undefined : await import("../../memory/store/provenance.js");
  const asOf = options.asOf === undefined ? undefined : provenance?.parseAsOf(options.asOf);
  const found = await service.search({
    userKey: options.user,
    query,
    limit: asOf ? 100 : limit,
    includeSuperseded: Boolean(options.all) || asOf !== undefined,
  });
  const results =
    asOf && provenance
      ? found.filter((result) => provenance.believedAt(result.memory, asOf)).slice(0, limit)
      : found;
  const episodes = options.episodes
    ? await service.searchEpisodes({ userKey: options.user, query, limit })
    : [];
  const text = [
    ...(results.length === 0
      ? [`No memories match "${query}".`]
      : results.map((result) => line(result.memory))),
    ...episodes.map(
      ({ episode }) => `  ${episode.createdAt} ${episode.sessionId} ${episode.role}: ${episode.text}`,
    ),
  ].join("\n");
  return {
    json: {
      ok: true,
      query,
      results: results.map((result) => ({ ...result.memory, relevance: result.relevance })),
      ...(options.episodes
        ? { episodes: episodes.map((hit) => ({ ...hit.episode, relevance: hit.relevance })) }
        : {}),
    },
    text,
  };
}

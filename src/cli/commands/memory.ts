import { readFile, writeFile } from "node:fs/promises";
import { extname } from "node:path";
import type { Command } from "commander";
import { forgetLeftovers } from "../../memory/forget-notice.js";
import type { MemoryService } from "../../memory/service.js";
import { believedAt, parseAsOf } from "../../memory/store/provenance.js";
import { MEMORY_KINDS, type MemoryKind, TIERS, type Tier } from "../../memory/store/types.js";
import {
  ADD_OPTIONS,
  addMemory,
  COMMON_OPTIONS,
  CommandFailure,
  type Common,
  line,
  type MemoryCommandIo,
  type MemoryRun,
  type OptionSpec,
  oneOf,
  positiveInt,
  runMemoryCommand,
  SEARCH_OPTIONS,
  searchMemories,
} from "./memory-actions.js";

export type { MemoryCommandIo } from "./memory-actions.js";

/**
 * Export and import (and zod, which parses import files) load only for those two commands: every
 * other memory command stays as light as `memory search` (BENCHMARKS.md, issue 11 latency).
 */
async function exportImport() {
  return import("../../memory/export-import.js");
}

/** Runs export/import work, turning its ImportError into this command's failure (exit 1). */
async function withImportErrors<T>(work: (io: Awaited<ReturnType<typeof exportImport>>) => Promise<T>) {
  const io = await exportImport();
  try {
    return await work(io);
  } catch (error) {
    if (error instanceof io.ImportError) throw new CommandFailure(error.message, { cause: error });
    throw error;
  }
}

/**
 * `mercury memory add|search|list|show|history|edit|forget|conflicts|stats|export|import`.
 * Every command takes --json (one JSON document on stdout) and --user KEY (default: owner).
 * Exit codes: 0 success, 1 failure (e.g. no such memory, bad import file), 2 usage error.
 */
export function registerMemoryCommands(
  program: Command,
  openService: () => Promise<MemoryService>,
  io: MemoryCommandIo = {},
): void {
  const stdout = io.stdout ?? ((text: string) => process.stdout.write(text));
  const stderr = io.stderr ?? ((text: string) => process.stderr.write(text));

  function action<O extends Common, A extends unknown[]>(run: MemoryRun<O, A, MemoryService>) {
    return async (...raw: unknown[]) => {
      const command = raw.at(-1) as Command;
      await runMemoryCommand(openService, { stdout, stderr }, run, command.opts<O>(), raw.slice(0, -2) as A);
    };
  }

  const memory = program.command("memory").description("the memory, for people and scripts");
  const sub = (name: string, description: string, specs: readonly OptionSpec[] = []) => {
    const command = memory.command(name).description(description);
    for (const spec of [...COMMON_OPTIONS, ...specs]) {
      if (spec.defaultValue === undefined) command.option(spec.flags, spec.description);
      else command.option(spec.flags, spec.description, spec.defaultValue);
    }
    return command;
  };

  sub("add", "remember something (manual evidence)", ADD_OPTIONS)
    .argument("<text...>", "what to remember")
    .action(action(addMemory));

  sub("search", "search memories (and with --episodes, past conversations)", SEARCH_OPTIONS)
    .argument("<query...>", "what to look for")
    .action(action(searchMemories));

  sub("list", "list memories")
    .option("--tier <tier>", `one of ${TIERS.join(", ")}`)
    .option("--kind <kind>", `one of ${MEMORY_KINDS.join(", ")}`)
    .option("--all", "include superseded memories")
    .option("--limit <n>", "at most this many")
    .option("--as-of <date>", "what was believed then (recorded by then, not yet superseded)")
    .action(
      action(
        async (
          service,
          options: Common & { tier?: string; kind?: string; all?: boolean; limit?: string; asOf?: string },
        ) => {
          const tier = oneOf<Tier>(options.tier, TIERS, "--tier");
          const kind = oneOf<MemoryKind>(options.kind, MEMORY_KINDS, "--kind");
          const asOf = options.asOf === undefined ? undefined : parseAsOf(options.asOf);
          const limit = options.limit ? positiveInt(options.limit, "--limit") : undefined;
          const listed = service.list({
            userKey: options.user,
            includeSuperseded: Boolean(options.all) || asOf !== undefined,
            ...(tier ? { tier } : {}),
            ...(kind ? { kind } : {}),
            ...(limit !== undefined && !asOf ? { limit } : {}),
          });
          const believed = asOf ? listed.filter((memory) => believedAt(memory, asOf)) : listed;
          const memories = limit !== undefined ? believed.slice(0, limit) : believed;
          return {
            json: { ok: true, memories },
            text: memories.length === 0 ? `No memories for ${options.user}.` : memories.map(line).join("\n"),
          };
        },
      ),
    );

  sub("show", "one memory with its provenance and confidence")
    .argument("<id>", "memory id")
    .action(
      action(async (service, options: Common, rawId: string) => {
        const shown = service.show(positiveInt(rawId, "the memory id"), options.user);
        const text = [
          line(shown),
          `  source: session ${shown.sourceSessionId ?? "-"}, messages [${shown.sourceMessageIds.join(", ")}]`,
          `  quote: ${shown.sourceQuote ?? "-"}`,
          `  valid: ${shown.validFrom ?? "?"} → ${shown.validTo ?? "now"}; recorded ${shown.recordedAt}${shown.supersededAt ? `, superseded ${shown.supersededAt}` : ""}`,
          `  contradictions: ${shown.contradictions}; last used: ${shown.lastUsedAt ?? "never"}; last confirmed: ${shown.lastConfirmedAt ?? "never"}`,
        ].join("\n");
        return { json: { ok: true, memory: shown }, text };
      }),
    );

  sub("history", "every version of a memory")
    .argument("<id>", "memory id")
    .action(
      action(async (service, options: Common, rawId: string) => {
        const id = positiveInt(rawId, "the memory id");
        const versions = service.history(id, options.user);
        const text = versions
          .map(
            (version) =>
              `${version.createdAt} ${version.reason} (${version.evidence}): ${version.text}${version.sourceQuote ? `\n    quote: "${version.sourceQuote}"` : ""}`,
          )
          .join("\n");
        return { json: { ok: true, id, versions }, text };
      }),
    );

  sub("edit", "change a memory's text (a new, manual version)")
    .argument("<id>", "memory id")
    .argument("<text...>", "the new text")
    .action(
      action(async (service, options: Common, rawId: string, words: string[]) => {
        const id = positiveInt(rawId, "the memory id");
        const before = service.show(id, options.user);
        const after = service.edit(id, options.user, words.join(" "));
        return { json: { ok: true, memory: after }, text: `Updated: ${after.text} (was: ${before.text})` };
      }),
    );

  sub("forget", "delete a memory for good (with its history and index entries)")
    .argument("<id>", "memory id")
    .action(
      action(async (service, options: Common, rawId: string) => {
        const id = positiveInt(rawId, "the memory id");
        const result = service.forget(id, options.user);
        const copies =
          result.copiesUpdated > 0
            ? ` (and in ${result.copiesUpdated} backup${result.copiesUpdated === 1 ? "" : "s"})`
            : "";
        // What the forget could not erase (the user's own workspace files, copies it cannot rewrite).
        const leftovers = forgetLeftovers(result)
          .map((line) => `\n${line}`)
          .join("");
        return {
          json: {
            ok: true,
            forgotten: id,
            backupsUpdated: result.copiesUpdated,
            backupsFailed: result.copiesFailed,
            workspaceFilesHolding: result.userFilesHolding,
            copiesHolding: result.copiesHolding,
          },
          text: `Forgotten: memory #${id}${copies}${leftovers}`,
        };
      }),
    );

  sub("why", "where a memory came from: source turns with speaker and date, and every version")
    .argument("<id>", "memory id")
    .action(
      action(async (service, options: Common, rawId: string) => {
        const why = service.why(positiveInt(rawId, "the memory id"), options.user);
        const text = [
          line(why.memory),
          why.sources.length === 0
            ? "  source turns: none recorded (added by hand, imported, or forgotten)"
            : "  source turns:",
          ...why.sources.map(
            (turn) =>
              `    ${turn.at} ${turn.speaker ?? turn.role} (session ${turn.sessionId}, message ${turn.messageId}): ${turn.text.replace(/\s+/g, " ")}`,
          ),
          "  versions:",
          ...why.versions.map(
            (version) =>
              `    ${version.createdAt} ${version.reason} (${version.evidence}): ${version.text}${version.sourceQuote ? ` — quote: "${version.sourceQuote}"` : ""}`,
          ),
        ].join("\n");
        return { json: { ok: true, ...why }, text };
      }),
    );

  sub("resolve", "settle an open conflict: keep one memory, or both")
    .argument("<id>", "a memory in the conflict")
    .requiredOption("--keep <id|both>", "the memory id to keep, or both")
    .action(
      action(async (service, options: Common & { keep: string }, rawId: string) => {
        const id = positiveInt(rawId, "the memory id");
        const keep = options.keep === "both" ? "both" : positiveInt(options.keep, "--keep");
        const result = service.resolveConflict(id, options.user, keep);
        const text =
          keep === "both"
            ? `Resolved: kept both (${result.kept.map((n) => `#${n}`).join(", ")})`
            : `Resolved: kept #${keep}; superseded ${result.superseded.map((n) => `#${n}`).join(", ") || "nothing"}`;
        return { json: { ok: true, ...result }, text };
      }),
    );

  sub("conflicts", "contradictions the rules could not decide").action(
    action(async (service, options: Common) => {
      const conflicts = service.conflicts(options.user);
      const text =
        conflicts.length === 0
          ? "No open conflicts."
          : conflicts.map((c) => `${line(c.a)}\n  vs ${line(c.b)}\n  why undecided: ${c.reason}`).join("\n");
      return { json: { ok: true, conflicts }, text };
    }),
  );

  sub("stats", "counts, tiers, the extraction queue and recent failures").action(
    action(async (service, options: Common) => {
      const stats = service.stats(options.user);
      const queue = stats.extraction.queue.map(
        (job) =>
          `  job #${job.id}: ${job.attempts} attempts, next ${job.nextAttemptAt}${job.lastError ? ` — ${job.lastError}` : ""}`,
      );
      const failures = stats.extraction.recentFailures.map((f) => `  ${f.at} [${f.stage}] ${f.reason}`);
      const jobs = stats.extraction.jobs;
      const text = [
        `memories (${options.user}): ${stats.memories.current} current (${
          Object.entries(stats.memories.byTier)
            .map(([tier, n]) => `${n} ${tier}`)
            .join(", ") || "none"
        }), ${stats.memories.superseded} superseded, ${stats.conflicts} conflicts`,
        `extraction queue: ${jobs.queued} queued, ${jobs.running} running, ${jobs.done} done, ${jobs.failed} failed`,
        `judge queue: ${stats.judgeQueue} waiting (compared again before the next extraction run)`,
        ...queue,
        `extraction failures: ${stats.extraction.failures}`,
        ...failures,
      ].join("\n");
      return { json: { ok: true, user: options.user, ...stats }, text };
    }),
  );

  sub("export", "write memories as JSONL (lossless) or Markdown")
    .option("--format <format>", "jsonl or md", "jsonl")
    .option("--out <file>", "write here instead of stdout")
    .option("--all-users", "every person's memories, not only --user")
    .action(
      action(async (service, options: Common & { format: string; out?: string; allUsers?: boolean }) => {
        const format = oneOf(options.format, ["jsonl", "md"] as const, "--format") ?? "jsonl";
        const users = options.allUsers ? service.memories.allUsers() : [options.user];
        const now = new Date();
        const exported = await withImportErrors(async (io) =>
          format === "md" ? io.exportMarkdown(service, users, now) : io.exportJsonl(service, users, now),
        );
        if (options.out) {
          await writeFile(options.out, exported.content, { mode: 0o600 });
          return {
            json: { ok: true, format, count: exported.count, path: options.out },
            text: `Exported ${exported.count} memories to ${options.out}`,
          };
        }
        return {
          json: { ok: true, format, count: exported.count, content: exported.content },
          text: exported.content,
        };
      }),
    );

  sub("import", "read memories from a JSONL or Markdown export")
    .argument("<file>", "the file to import")
    .option("--format <format>", "jsonl or md (default: from the file extension)")
    .action(
      action(async (service, options: Common & { format?: string }, file: string) => {
        const byExtension = [".md", ".markdown"].includes(extname(file).toLowerCase()) ? "md" : "jsonl";
        const format = oneOf(options.format, ["jsonl", "md"] as const, "--format") ?? byExtension;
        let content: string;
        try {
          content = await readFile(file, "utf8");
        } catch (error) {
          throw new CommandFailure(
            `cannot read ${file}: ${error instanceof Error ? error.message : String(error)}`,
          );
        }
        const result = await withImportErrors(async (io) => {
          const records =
            format === "md" ? io.parseMarkdown(content, options.user, new Date()) : io.parseJsonl(content);
          return io.importAndConsolidate(service, records);
        });
        const merged = result.consolidation;
        return {
          json: { ok: true, format, ...result },
          text:
            `Imported ${result.imported} memories (${result.skipped} already present, ${result.conflicts} conflicts).` +
            ` Against what was stored: ${merged.confirmed} confirmed, ${merged.superseded} updated,` +
            ` ${merged.keptExisting} set aside, ${merged.conflicts} new conflicts, ${merged.queued} waiting for the judge.`,
        };
      }),
    );
}

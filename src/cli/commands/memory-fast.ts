import { createRequire } from "node:module";
import { outputStreamsInUse, tolerateClosedOutput, writeDirect } from "../closed-output.js";
import { parsePlain } from "../plain-args.js";
import type { MemoryRun } from "./memory-actions.js";

export { parsePlain };

/**
 * `mercury memory add|search` without commander: the two memory commands scripts and people run
 * most start in about the time of `node` itself (BENCHMARKS.md, issue 11 memory latency), and
 * commander's loading is a tenth of that. Only plain command lines take this path — known long
 * options (`--limit 5`, `--limit=5`, `--json`) and words; anything else (help, a short or unknown
 * option, `--`, a word starting with "-", a repeated option, no words) returns null and the full
 * program parses it, with its errors and help. Options are read from the same tables commander is
 * given (memory-actions.ts), so the two cannot disagree on names or defaults.
 */
export async function runMemoryFast(args: readonly string[]): Promise<number | null> {
  const [group, name, ...rest] = args;
  if (group !== "memory" || (name !== "add" && name !== "search")) return null;
  // What the command runs, loaded before anything else: the actions, the service with its store and
  // search index, for `add` consolidation (every add consolidates), for `search` the final ranking
  // (retrieval.ts).
  if (name === "add") await loadModule("../../memory/consolidation/consolidate.js");
  else await loadModule("../../memory/retrieval.js");
  const cli = await loadModule<typeof import("../../app/memory-cli.js")>("../../app/memory-cli.js");
  const { ADD_OPTIONS, addMemory, COMMON_OPTIONS, runMemoryCommand, SEARCH_OPTIONS, searchMemories } =
    await loadModule<typeof import("./memory-actions.js")>("./memory-actions.js");
  const command =
    name === "add"
      ? { specs: ADD_OPTIONS, run: addMemory as MemoryRun<never, [string[]]> }
      : { specs: SEARCH_OPTIONS, run: searchMemories as MemoryRun<never, [string[]]> };
  const parsed = parsePlain(rest, [...COMMON_OPTIONS, ...command.specs]);
  // Anything else: the full program parses the line (finding these modules already loaded).
  if (!parsed) return null;
  const io = {
    stdout: (text: string) => writeDirect(1, text),
    stderr: (text: string) => writeDirect(2, text),
  };
  let finish = () => {};
  try {
    const { openMemoryCoreForCli } = cli;
    await runMemoryCommand(
      async () => {
        const opened = await openMemoryCoreForCli();
        finish = opened.finish;
        return opened.service;
      },
      io,
      command.run,
      parsed.options as never,
      [parsed.words],
    );
  } catch (error) {
    // What the commands do not know is reported as the full program reports it.
    tolerateClosedOutput();
    const { reportError } = await import("../report-error.js");
    return reportError(error);
  } finally {
    // The database stays open for `exitWithoutClosing` unless its WAL is due a checkpoint.
    finish();
  }
  return typeof process.exitCode === "number" ? process.exitCode : 0;
}

const requireModule = createRequire(import.meta.url);

/**
 * An ES module with everything it imports, loaded synchronously where Node can (`require` of an ES
 * module: Node 20.19+, 22.12+): each file is read, compiled and linked in turn, without the
 * asynchronous loader's promise chain and off-thread reads between files, ~10 ms less for the ~65
 * files of `memory add` (BENCHMARKS.md, issue 11 memory latency). Same module instances as `import()`
 * gives later. Elsewhere, or for a file the synchronous path cannot take (top-level await; a `.ts`
 * source run by tsx), `import()`.
 */
function loadModule<Module>(specifier: string): Promise<Module> {
  if (!process.features.require_module) return import(specifier) as Promise<Module>;
  try {
    return Promise.resolve(requireModule(specifier) as Module);
  } catch (error) {
    const code = error instanceof Error && "code" in error ? error.code : undefined;
    if (code === "ERR_REQUIRE_ASYNC_MODULE" || code === "ERR_REQUIRE_ESM" || code === "MODULE_NOT_FOUND")
      return import(specifier) as Promise<Module>;
    return Promise.reject(error);
  }
}

/**
 * Ends a fast-path `memory add|search` once its output is handed to the OS, without closing the
 * database. Closing the last connection checkpoints the WAL (copies its pages into mercury.db,
 * two fsyncs, deletes the WAL, and the next write re-creates it: two more fsyncs, one of them the
 * folder's); a natural exit does the same from better-sqlite3's clean-up hook, and then frees the
 * heap page by page. `process.exit` runs neither (BENCHMARKS.md, memory-command latency, work/memcli8).
 * Nothing is lost: every commit was synced to the WAL before its line was printed (synchronous =
 * FULL, memory-cli.ts), and the next connection reads the WAL back; the command closed the database
 * itself, checkpointing, if the WAL had grown past ~1 MB (`finish`, memory-cli.ts), and `memory
 * forget` still checkpoints and truncates it so that no forgotten text stays there.
 */
export async function exitWithoutClosing(code: number): Promise<never> {
  // Output written with writeDirect is with the OS already; only the streams may hold some back.
  if (outputStreamsInUse()) await Promise.all([handedOver(process.stdout), handedOver(process.stderr)]);
  process.exit(code);
}

/**
 * Resolves when everything written before is with the OS (writes are in order). A write that failed
 * (a closed pipe) has already been reported by the stream's own error event; there is nothing left
 * to wait for.
 */
function handedOver(stream: NodeJS.WriteStream): Promise<void> {
  return new Promise((resolve) => stream.write("", () => resolve()));
}

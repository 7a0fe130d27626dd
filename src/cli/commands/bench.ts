import { type Command, InvalidArgumentError } from "commander";
import { BenchDataError, loadLocomo } from "../../memory/bench/locomo.js";
import { type MemoryScaleReport, runMemoryScaleBench } from "../../memory/bench/memory-scale.js";
import { type RetrievalReport, runRetrievalBench } from "../../memory/bench/retrieval.js";

export interface BenchIo {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  setExitCode: (code: number) => void;
}

const defaultIo: BenchIo = {
  stdout: (text) => process.stdout.write(`${text}\n`),
  stderr: (text) => process.stderr.write(`${text}\n`),
  setExitCode: (code) => {
    process.exitCode = code;
  },
};

function positiveInteger(value: string): number {
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 1)
    throw new InvalidArgumentError(`expected a positive integer, got "${value}"`);
  return parsed;
}

export function registerBenchCommands(program: Command, io: BenchIo = defaultIo): void {
  const bench = program.command("bench").description("measure memory retrieval quality and speed");

  bench
    .command("retrieval")
    .description(
      "evidence-retrieval benchmark on LoCoMo-format data (the public LoCoMo JSON, e.g. locomo10.json; format read by src/memory/bench/locomo.ts; results in BENCHMARKS.md)",
    )
    .requiredOption("--data <file>", "LoCoMo-format JSON file")
    .option("--json", "print one JSON document")
    .action(async (options: { data: string; json?: boolean }) => {
      let report: RetrievalReport;
      try {
        report = await runRetrievalBench(loadLocomo(options.data));
      } catch (error) {
        io.stderr(`bench retrieval: ${(error as Error).message}`);
        io.setExitCode(error instanceof BenchDataError ? 2 : 1);
        return;
      }
      io.stdout(options.json ? JSON.stringify(report) : formatRetrieval(report));
      io.setExitCode(0);
    });

  bench
    .command("memory-scale")
    .description("ingest rate, query latency and peak memory at N synthetic memories")
    .requiredOption("--n <count>", "number of memories", positiveInteger)
    .option("--queries <count>", "number of timed queries", positiveInteger, 200)
    .option("--json", "print one JSON document")
    .action(async (options: { n: number; queries: number; json?: boolean }) => {
      let report: MemoryScaleReport;
      try {
        report = await runMemoryScaleBench({ n: options.n, queries: options.queries });
      } catch (error) {
        io.stderr(`bench memory-scale: ${(error as Error).message}`);
        io.setExitCode(1);
        return;
      }
      io.stdout(options.json ? JSON.stringify(report) : formatScale(report));
      io.setExitCode(0);
    });
}

function formatRetrieval(report: RetrievalReport): string {
  const recall = Object.entries(report.recallAt)
    .map(([k, value]) => `@${k} ${value.toFixed(3)}`)
    .join("  ");
  const categories = Object.entries(report.recallAt10ByCategory)
    .map(([category, value]) => `cat ${category}: ${value.toFixed(3)}`)
    .join("  ");
  return [
    `questions      ${report.questions} (${report.conversations} conversations, ${report.documents} turns; ${report.skippedQuestions} skipped without valid evidence)`,
    `recall         ${recall}`,
    `nDCG@10        ${report.ndcgAt10.toFixed(3)}`,
    `recall@10 by   ${categories}`,
    `latency        p50 ${report.latencyMs.p50} ms  p95 ${report.latencyMs.p95} ms (search only)`,
  ].join("\n");
}

function formatScale(report: MemoryScaleReport): string {
  return [
    `memories       ${report.n} (${report.queries} timed queries)`,
    `ingest         ${report.ingest.docsPerSecond} docs/s (${report.ingest.seconds} s)`,
    `lexical query  p50 ${report.lexical.queryMs.p50} ms  p95 ${report.lexical.queryMs.p95} ms  (CPU p50 ${report.lexical.queryMs.cpuP50} ms  p95 ${report.lexical.queryMs.cpuP95} ms)`,
    `hybrid query   p50 ${report.hybrid.queryMs.p50} ms  p95 ${report.hybrid.queryMs.p95} ms  (CPU p50 ${report.hybrid.queryMs.cpuP50} ms  p95 ${report.hybrid.queryMs.cpuP95} ms)`,
    `vectors        ${report.hybrid.dimensions} dims, cache load ${report.hybrid.cacheLoadMs} ms, embedding ${report.hybrid.embedDocsPerSecond} docs/s`,
    `peak RSS       ${report.peakRssMb} MB`,
    `load average   ${report.loadAverage} (latencies include contention from other processes)`,
  ].join("\n");
}

import { type Command, InvalidArgumentError } from "commander";
import { type AblationRow, runAblation } from "../../memory/bench/ablation.js";
import { BenchDataError, loadLocomo } from "../../memory/bench/locomo.js";
import { type MemoryScaleReport, runMemoryScaleBench } from "../../memory/bench/memory-scale.js";
import { type RetrievalReport, runRetrievalBench } from "../../memory/bench/retrieval.js";
import { plainFts5Retriever } from "../../memory/bench/retrievers.js";
import { compareSplits, type QuestionScore, type SplitComparison } from "../../memory/bench/splits.js";
import { DEFAULT_QUANTIZATION, type Quantization } from "../../memory/search/vectors.js";

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

function quantizationOf(value: string): Quantization {
  if (value === "float" || value === "int8" || value === "binary") return value;
  throw new InvalidArgumentError(`expected float, int8 or binary, got "${value}"`);
}

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
      "evidence-retrieval benchmark on LoCoMo-format data (LoCoMo, or LongMemEval converted to it), beside plain FTS5 porter measured in the same run",
    )
    .requiredOption(
      "--data <file>",
      "LoCoMo-format JSON (repeat for several data sets): an array of {sample_id, conversation: {session_<n>: [{speaker, dia_id, text}], session_<n>_date_time}, qa: [{question, evidence: [dia_id], category 1-4}]}",
      collect,
      [],
    )
    .option("--ablation", "also run every feature switched off alone (slow: a few loads per conversation)")
    .option("--every <n>", "only every n-th conversation (a fixed, deterministic sample)", positiveInteger, 1)
    .option("--json", "print one JSON document")
    .action(async (options: { data: string[]; ablation?: boolean; every: number; json?: boolean }) => {
      const reports: DatasetReport[] = [];
      try {
        for (const file of options.data) {
          const conversations = loadLocomo(file).filter((_, index) => index % options.every === 0);
          const ours: QuestionScore[] = [];
          const theirs: QuestionScore[] = [];
          const report: DatasetReport = {
            data: file,
            mercury: await runRetrievalBench(conversations, undefined, ours),
            plainFts5Porter: await runRetrievalBench(conversations, plainFts5Retriever, theirs),
            splits: [],
          };
          report.splits = compareSplits(ours, theirs);
          if (options.ablation) report.ablation = await runAblation(conversations);
          reports.push(report);
        }
      } catch (error) {
        io.stderr(`bench retrieval: ${(error as Error).message}`);
        io.setExitCode(error instanceof BenchDataError ? 2 : 1);
        return;
      }
      io.stdout(
        options.json ? JSON.stringify({ datasets: reports }) : reports.map(formatDataset).join("\n\n"),
      );
      io.setExitCode(0);
    });

  bench
    .command("memory-scale")
    .description("ingest rate, query latency and peak memory at N synthetic memories")
    .requiredOption("--n <count>", "number of memories", positiveInteger)
    .option("--queries <count>", "number of timed queries", positiveInteger, 200)
    .option(
      "--quantization <kind>",
      "vector storage: float, int8 or binary (rescored)",
      quantizationOf,
      DEFAULT_QUANTIZATION,
    )
    .option("--json", "print one JSON document")
    .action(async (options: { n: number; queries: number; quantization: Quantization; json?: boolean }) => {
      let report: MemoryScaleReport;
      try {
        report = await runMemoryScaleBench({
          n: options.n,
          queries: options.queries,
          quantization: options.quantization,
        });
      } catch (error) {
        io.stderr(`bench memory-scale: ${(error as Error).message}`);
        io.setExitCode(1);
        return;
      }
      io.stdout(options.json ? JSON.stringify(report) : formatScale(report));
      io.setExitCode(0);
    });
}

interface DatasetReport {
  data: string;
  mercury: RetrievalReport;
  plainFts5Porter: RetrievalReport;
  /** Mercury against plain FTS5 per split: all, each category, each question type, each conversation. */
  splits: SplitComparison[];
  ablation?: AblationRow[];
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

function formatDataset(report: DatasetReport): string {
  const ratio = (a: number, b: number) => (b > 0 ? `${(a / b).toFixed(2)}x` : "n/a");
  const lines = [
    `# ${report.data}`,
    "## mercury",
    formatRetrieval(report.mercury),
    "## plain FTS5 porter unicode61 (baseline, same run)",
    formatRetrieval(report.plainFts5Porter),
    `## mercury / baseline: recall@10 ${ratio(report.mercury.recallAt["10"], report.plainFts5Porter.recallAt["10"])}  nDCG@10 ${ratio(report.mercury.ndcgAt10, report.plainFts5Porter.ndcgAt10)}`,
  ];
  lines.push("## per split, recall@10 / nDCG@10: mercury | baseline | ratio");
  for (const split of report.splits) {
    const pair = (scores: { recallAt10: number; ndcgAt10: number }) =>
      `${scores.recallAt10.toFixed(3)} / ${scores.ndcgAt10.toFixed(3)}`;
    const ratioText = (value: number | null) => (value === null ? "n/a" : `${value.toFixed(2)}x`);
    lines.push(
      `${split.split.padEnd(36)} ${String(split.questions).padStart(4)} q  ${pair(split.mercury)} | ${pair(split.baseline)} | ${ratioText(split.ratio.recallAt10)} / ${ratioText(split.ratio.ndcgAt10)}${split.below ? "  BELOW BASELINE" : ""}`,
    );
  }
  if (report.ablation) {
    lines.push("## ablation (recall@10 / nDCG@10; per category recall@10)");
    for (const row of report.ablation) {
      const categories = Object.entries(row.report.recallAt10ByCategory)
        .map(([category, value]) => `${category}: ${value.toFixed(3)}`)
        .join("  ");
      lines.push(
        `${row.variant.padEnd(18)} ${row.report.recallAt["10"].toFixed(3)} / ${row.report.ndcgAt10.toFixed(3)}   ${categories}   (${row.change})`,
      );
    }
  }
  return lines.join("\n");
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
    `               top 10 shared with an unbounded first stage ${report.lexical.top10AgreementWithExhaustive}, same top result ${report.lexical.top1AgreementWithExhaustive}`,
    `hybrid query   p50 ${report.hybrid.queryMs.p50} ms  p95 ${report.hybrid.queryMs.p95} ms  (CPU p50 ${report.hybrid.queryMs.cpuP50} ms  p95 ${report.hybrid.queryMs.cpuP95} ms)`,
    `vectors        ${report.hybrid.dimensions} dims, ${report.hybrid.quantization}, embedding ${report.hybrid.embedDocsPerSecond} docs/s (sqlite-vec inserts included), recall@10 vs exact cosine ${report.hybrid.vectorRecallAt10}`,
    `add one        p50 ${report.addOne.ms.p50} ms  p95 ${report.addOne.ms.p95} ms  (CPU p95 ${report.addOne.ms.cpuP95} ms; words and vector)`,
    `bytes/memory   ${report.bytesPerMemory.lexical} without vectors, ${report.bytesPerMemory.withVectors} with`,
    `peak RSS       ${report.peakRssMb} MB`,
    `load average   ${report.loadAverage} (latencies include contention from other processes)`,
  ].join("\n");
}

#!/usr/bin/env node
// Statement-pair consolidation benchmark: `npm run build && node scripts/bench-pairs.mjs`.
// Runs every labelled pair of test/memory/fixtures/statement-pairs{,-heldout,-adversarial,-classes,-reference-time-speech,-ended-session7,-session8,-session8-probe,-session9,-session10,-session11,-session11-probe,-session12}.jsonl through the real memory
// service (in-memory SQLite) with the deterministic fallback, a scripted oracle judge and a noisy
// scripted judge and a lying one, and prints one JSON report per mode.
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const { loadPairs, runPairsBench } = await import(join(root, "dist/memory/bench/statement-pairs.js"));
// `node scripts/bench-pairs.mjs statement-pairs-session10.jsonl` runs only the named files.
const named = process.argv.slice(2);
const files = [
  "statement-pairs.jsonl",
  "statement-pairs-heldout.jsonl",
  "statement-pairs-adversarial.jsonl",
  "statement-pairs-classes.jsonl",
  "statement-pairs-reference-time-speech.jsonl",
  "statement-pairs-ended-session7.jsonl",
  "statement-pairs-session8.jsonl",
  "statement-pairs-session8-probe.jsonl",
  "statement-pairs-session9.jsonl",
  "statement-pairs-session10.jsonl",
  "statement-pairs-session11.jsonl",
  "statement-pairs-session11-probe.jsonl",
  "statement-pairs-session12.jsonl",
];
for (const file of named.length > 0 ? named : files) {
  const pairs = loadPairs(join(root, "test/memory/fixtures", file));
  for (const mode of ["rules", "oracle", "noisy", "liar"]) {
    const report = await runPairsBench(pairs, mode);
    const failures = report.failures.map(
      (failure) =>
        `#${failure.pair.id} ${failure.pair.label} -> ${failure.action}${failure.wrongSupersession ? " wrong-supersession" : ""}${failure.wrongConfirmation ? " wrong-confirmation" : ""}${failure.informationLost ? " information-lost" : ""}`,
    );
    process.stdout.write(`${JSON.stringify({ file, ...report, failures })}\n`);
  }
}

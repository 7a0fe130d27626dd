#!/usr/bin/env node
// Development aid for issue 12: runs the ablation variants on both dev sets in one process and prints
// recall@10 / nDCG@10 overall, on even and odd conversations (a proxy for the held-out splits), on even
// and odd questions of each conversation (when a conversation has several), and
// recall@10 per category. Needs `npm run build`. Usage:
//   node scripts/retrieval-variants.mjs [--every N] [--only name,name] [--set locomo|longmemeval]
//     [--variant 'name={"documents":{...},"search":{...}}']...  (extra variants, e.g. window 2)
import { resolve } from "node:path";
import { ABLATION_VARIANTS, groupByDocuments } from "../dist/memory/bench/ablation.js";
import { loadLocomo } from "../dist/memory/bench/locomo.js";
import { ndcgAt, recallAt } from "../dist/memory/bench/metrics.js";
import { loadConversation, searcherOf } from "../dist/memory/bench/retrievers.js";

const args = process.argv.slice(2);
const option = (name) => {
  const index = args.indexOf(name);
  return index >= 0 ? args[index + 1] : undefined;
};
const every = Number(option("--every") ?? 1);
const only = option("--only")?.split(",");
const set = option("--set");
const root = resolve(import.meta.dirname, "../../shared/bench");
const sets = [
  ["LoCoMo", "locomo-dev.json"],
  ["LongMemEval", "longmemeval-dev.json"],
].filter(([name]) => set === undefined || name.toLowerCase().startsWith(set));
const extra = args
  .filter((_, index) => args[index - 1] === "--variant")
  .map((text) => {
    const [name, json] = [text.slice(0, text.indexOf("=")), text.slice(text.indexOf("=") + 1)];
    return { name, change: json, ...JSON.parse(json) };
  });
const variants = [
  ...ABLATION_VARIANTS.filter((variant) => only === undefined || only.includes(variant.name)),
  ...extra,
];
const mean = (values) => values.reduce((sum, value) => sum + value, 0) / Math.max(1, values.length);
const cell = (rows) =>
  `${mean(rows.map((row) => row.recall)).toFixed(3)}/${mean(rows.map((row) => row.ndcg)).toFixed(3)}`;
for (const [name, file] of sets) {
  const all = loadLocomo(resolve(root, file));
  const step = name === "LongMemEval" ? every : 1;
  const conversations = all.filter((_, index) => index % step === 0);
  const started = Date.now();
  const rows = new Map(variants.map((variant) => [variant.name, []]));
  for (const [position, conversation] of conversations.entries()) {
    for (const group of groupByDocuments(variants)) {
      const { database, idOf } = loadConversation(conversation, group.documents);
      for (const variant of group.variants) {
        const search = searcherOf(database, idOf, variant.search);
        for (const [number, question] of conversation.questions.entries()) {
          const ranking = await search(question.question);
          const relevant = new Set(question.evidence);
          rows.get(variant.name).push({
            parity: position % 2,
            // Questions alternate within each conversation too: a second split, for sets with few conversations.
            questionParity: number % 2,
            category: question.category,
            recall: recallAt(ranking, relevant, 10),
            ndcg: ndcgAt(ranking, relevant, 10),
          });
        }
      }
      database.close();
    }
  }
  console.log(
    `\n${name} (${conversations.length} conversations, ${((Date.now() - started) / 1000).toFixed(0)} s)`,
  );
  for (const [variant, list] of rows) {
    const categories = [1, 2, 3, 4]
      .map((category) => `${category}:${cell(list.filter((row) => row.category === category))}`)
      .join(" ");
    const half = (parity) => cell(list.filter((row) => row.parity === parity));
    const questions = (parity) => cell(list.filter((row) => row.questionParity === parity));
    const split = list.some((row) => row.questionParity === 1)
      ? `  q-even ${questions(0)} q-odd ${questions(1)}`
      : "";
    console.log(
      `${variant.padEnd(20)} all ${cell(list)}  even ${half(0)} odd ${half(1)}${split}  ${categories}`,
    );
  }
}

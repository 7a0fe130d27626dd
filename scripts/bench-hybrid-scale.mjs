#!/usr/bin/env node
// Hybrid search at scale, two builds on one store (what `bench memory-scale` measures for hybrid
// queries, without its ingestion, agreement and embedding phases on every run):
//
//   node scripts/bench-hybrid-scale.mjs build <store.db> <n>
//       writes n synthetic memories (the memory-scale stream, seed 42, batches of 1,000) and embeds
//       them with the 384-dimension hash embedder into the live store kind (binary), once;
//   node scripts/bench-hybrid-scale.mjs time <store.db> <distA> [distB] [rounds] [--recall] [--same]
//       loads each build's SearchIndex (with the embedder) on the same database, alternates them round
//       by round, and prints CPU and wall p50 / p95 of 100 timed queries (seed 43) after 50 warm-up
//       (seed 44) per round, as memory-scale does; --recall also prints each build's vector recall@10
//       (memory-scale's measure, 20 queries); --same counts the queries whose fused top 10 are the
//       same for both builds; --interleave alternates the builds query by query instead of round by
//       round and prints the median of the per-query CPU ratios (second build / first).
//
// A single build with rounds 1 under `node --cpu-prof` is the profile of a hybrid query loop.
// The store is written by the first build's code; keep it under /tmp and delete it after.
import { existsSync } from "node:fs";
import { loadavg } from "node:os";
import { resolve } from "node:path";
import { performance } from "node:perf_hooks";
import { pathToFileURL } from "node:url";

const [command, storePath, ...rest] = process.argv.slice(2);
if (!command || !storePath) {
  console.error(
    "usage: bench-hybrid-scale.mjs build <store.db> <n> | time <store.db> <distA> [distB] [rounds] [--recall] [--same]",
  );
  process.exit(2);
}

async function load(dist) {
  const root = pathToFileURL(`${resolve(dist)}/`);
  const database = await import(new URL("storage/database.js", root).href);
  const searchIndex = await import(new URL("memory/search/search-index.js", root).href);
  const embedder = await import(new URL("memory/search/hash-embedder.js", root).href);
  const synthetic = await import(new URL("memory/bench/synthetic.js", root).href);
  return { ...database, ...searchIndex, ...embedder, ...synthetic };
}

const SEARCHED = { namespace: "memory", scopes: ["owner"] };

function percentile(values, p) {
  const sorted = [...values].sort((x, y) => x - y);
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index];
}

const round2 = (value) => Math.round(value * 100) / 100;

async function timeQueries(index, queries) {
  const wall = [];
  const cpu = [];
  for (const query of queries) {
    const before = process.cpuUsage();
    const started = performance.now();
    await index.search(query, SEARCHED);
    wall.push(performance.now() - started);
    const used = process.cpuUsage(before);
    cpu.push((used.user + used.system) / 1000);
  }
  return {
    cpu: `${round2(percentile(cpu, 50))} / ${round2(percentile(cpu, 95))}`,
    wall: `${round2(percentile(wall, 50))} / ${round2(percentile(wall, 95))}`,
  };
}

/** memory-scale's vectorRecall: tie-aware recall@10 of the live scan against an exact one. */
async function vectorRecall(index, queries) {
  let found = 0;
  let expected = 0;
  for (const query of queries) {
    const exact = await index.nearestVectors(query, SEARCHED, 10, true);
    const tenth = exact[exact.length - 1]?.similarity;
    if (tenth === undefined) continue;
    const top = (await index.nearestVectors(query, SEARCHED, 100)).slice(0, exact.length);
    found += top.filter((hit) => hit.similarity >= tenth - 1e-6).length;
    expected += exact.length;
  }
  return expected === 0 ? 1 : found / expected;
}

if (command === "build") {
  const n = Number(rest[0]);
  if (existsSync(storePath)) throw new Error(`${storePath} exists`);
  const lib = await load(resolve("dist"));
  const database = lib.openDatabase(storePath);
  const index = new lib.SearchIndex(database, { embedder: new lib.HashEmbedder(384) });
  const texts = lib.syntheticMemoryStream(42);
  const started = performance.now();
  for (let start = 0; start < n; start += 1000) {
    const batch = [];
    for (let id = start; id < Math.min(n, start + 1000); id++)
      batch.push({ namespace: "memory", id: id + 1, scope: "owner", text: texts.next().value });
    index.upsertMany(batch);
  }
  const ingested = performance.now();
  await index.embedPending({ batchSize: 1000 });
  database.pragma("wal_checkpoint(TRUNCATE)");
  database.close();
  console.log(
    JSON.stringify({
      n,
      ingestSeconds: Math.round((ingested - started) / 100) / 10,
      embedSeconds: Math.round((performance.now() - ingested) / 100) / 10,
    }),
  );
} else if (command === "time") {
  const positional = rest.filter((arg) => !arg.startsWith("--"));
  const rounds = Number(positional.find((arg) => /^\d+$/.test(arg)) ?? 2);
  const dists = positional.filter((arg) => !/^\d+$/.test(arg));
  const builds = [];
  for (const dist of dists) {
    const lib = await load(dist);
    const database = lib.openDatabase(storePath);
    const index = new lib.SearchIndex(database, { embedder: new lib.HashEmbedder(384) });
    builds.push({ dist, lib, index, database });
  }
  const queries = builds[0].lib.syntheticQueries(100, 43);
  const warmUp = builds[0].lib.syntheticQueries(50, 44);
  for (const build of builds) await timeQueries(build.index, warmUp);
  if (rest.includes("--interleave")) {
    // Query by query, the builds in turn (the first one alternating): on a loaded machine both see
    // the same moments. CPU per query of each build, and the median of the per-query ratios B / A.
    for (let round = 0; round < rounds; round++) {
      const cpu = builds.map(() => []);
      for (const [position, query] of queries.entries()) {
        const order =
          position % 2 === 0
            ? builds.map((_, which) => which)
            : builds.map((_, which) => builds.length - 1 - which);
        for (const which of order) {
          const before = process.cpuUsage();
          await builds[which].index.search(query, SEARCHED);
          const used = process.cpuUsage(before);
          cpu[which].push((used.user + used.system) / 1000);
        }
      }
      const ratios = cpu[0].map((value, index) => (cpu[cpu.length - 1][index] ?? 0) / value);
      console.log(
        JSON.stringify({
          round,
          load: loadavg()[0].toFixed(1),
          cpu: Object.fromEntries(
            builds.map((build, which) => [
              build.dist,
              `${round2(percentile(cpu[which], 50))} / ${round2(percentile(cpu[which], 95))}`,
            ]),
          ),
          ratioMedian: round2(percentile(ratios, 50)),
        }),
      );
    }
  } else
    for (let round = 0; round < rounds; round++) {
      for (const build of builds) {
        const result = await timeQueries(build.index, queries);
        console.log(JSON.stringify({ round, dist: build.dist, load: loadavg()[0].toFixed(1), ...result }));
      }
    }
  if (rest.includes("--recall")) {
    for (const build of builds) {
      const recall = await vectorRecall(build.index, queries.slice(0, 20));
      console.log(JSON.stringify({ dist: build.dist, vectorRecallAt10: recall.toFixed(3) }));
    }
  }
  if (rest.includes("--same") && builds.length === 2) {
    let same = 0;
    let sharedTop10 = 0;
    for (const query of queries) {
      const [a, b] = await Promise.all(
        builds.map(async (build) =>
          (await build.index.search(query, SEARCHED)).slice(0, 10).map((hit) => hit.id),
        ),
      );
      if (a.join(",") === b.join(",")) same++;
      const inA = new Set(a);
      sharedTop10 += b.filter((id) => inA.has(id)).length;
    }
    console.log(JSON.stringify({ identicalTop10: same, sharedTop10: sharedTop10 / (queries.length * 10) }));
  }
  for (const build of builds) build.database.close();
} else {
  throw new Error(`unknown command ${command}`);
}

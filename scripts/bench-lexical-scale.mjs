#!/usr/bin/env node
// Lexical search at scale, two builds on one store (what `bench memory-scale` measures, without its
// 15 minutes of embedding and reference runs):
//
//   node scripts/bench-lexical-scale.mjs build <store.db> <n>
//       writes n synthetic memories (the memory-scale stream, seed 42, batches of 1,000) once;
//   node scripts/bench-lexical-scale.mjs time <store.db> <distA> <distB> [rounds] [--agreement]
//       loads both builds' SearchIndex on the same database, alternates them round by round, and
//       prints CPU and wall p50 / p95 of 100 timed queries (seed 43) after 50 warm-up (seed 44) per
//       round, as memory-scale does; --agreement also prints each build's top-10 / top-1 agreement
//       with the unbounded first stage and how many of the 100 queries give identical hits.
//
// The store is written by the first build's code; keep it under /tmp and delete it after.
import { existsSync } from "node:fs";
import { loadavg } from "node:os";
import { resolve } from "node:path";
import { performance } from "node:perf_hooks";
import { pathToFileURL } from "node:url";

const [command, storePath, ...rest] = process.argv.slice(2);
if (!command || !storePath) {
  console.error(
    "usage: bench-lexical-scale.mjs build <store.db> <n> | time <store.db> <distA> <distB> [rounds]",
  );
  process.exit(2);
}

async function load(dist) {
  const root = pathToFileURL(`${resolve(dist)}/`);
  const database = await import(new URL("storage/database.js", root).href);
  const searchIndex = await import(new URL("memory/search/search-index.js", root).href);
  const synthetic = await import(new URL("memory/bench/synthetic.js", root).href);
  return { ...database, ...searchIndex, ...synthetic };
}

const SEARCHED = { namespace: "memory", scopes: ["owner"] };

function percentile(values, p) {
  const sorted = [...values].sort((x, y) => x - y);
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index];
}

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
  const round2 = (value) => Math.round(value * 100) / 100;
  return {
    cpu: `${round2(percentile(cpu, 50))} / ${round2(percentile(cpu, 95))}`,
    wall: `${round2(percentile(wall, 50))} / ${round2(percentile(wall, 95))}`,
  };
}

if (command === "build") {
  const n = Number(rest[0]);
  if (existsSync(storePath)) throw new Error(`${storePath} exists`);
  const lib = await load(resolve("dist"));
  const database = lib.openDatabase(storePath);
  const index = new lib.SearchIndex(database);
  const texts = lib.syntheticMemoryStream(42);
  const started = performance.now();
  for (let start = 0; start < n; start += 1000) {
    const batch = [];
    for (let id = start; id < Math.min(n, start + 1000); id++)
      batch.push({ namespace: "memory", id: id + 1, scope: "owner", text: texts.next().value });
    index.upsertMany(batch);
  }
  database.pragma("wal_checkpoint(TRUNCATE)");
  database.close();
  console.log(JSON.stringify({ n, seconds: Math.round((performance.now() - started) / 100) / 10 }));
} else if (command === "time") {
  const [distA, distB, roundsText] = rest.filter((arg) => !arg.startsWith("--"));
  const agreement = rest.includes("--agreement");
  const rounds = Number(roundsText ?? 2);
  const builds = [];
  for (const dist of [distA, distB]) {
    const lib = await load(dist);
    const database = lib.openDatabase(storePath);
    builds.push({ dist, lib, index: new lib.SearchIndex(database), database });
  }
  const queries = builds[0].lib.syntheticQueries(100, 43);
  const warmUp = builds[0].lib.syntheticQueries(50, 44);
  for (const build of builds) await timeQueries(build.index, warmUp);
  for (let round = 0; round < rounds; round++) {
    for (const build of builds) {
      const result = await timeQueries(build.index, queries);
      console.log(JSON.stringify({ round, dist: build.dist, load: loadavg()[0].toFixed(1), ...result }));
    }
  }
  if (agreement) {
    const exhaustive = new builds[0].lib.SearchIndex(builds[0].database, {
      firstStageBudget: Number.POSITIVE_INFINITY,
    });
    const hits = [[], []];
    const shared = [0, 0];
    const first = [0, 0];
    let expected = 0;
    for (const query of queries) {
      const reference = (await exhaustive.search(query, SEARCHED)).slice(0, 10).map((hit) => hit.id);
      expected += reference.length;
      for (const [which, build] of builds.entries()) {
        const top = (await build.index.search(query, SEARCHED)).slice(0, 10).map((hit) => hit.id);
        hits[which].push(top.join(","));
        const found = new Set(top);
        shared[which] += reference.filter((id) => found.has(id)).length;
        if (top[0] === reference[0]) first[which]++;
      }
    }
    const identical = hits[0].filter((top, index) => top === hits[1][index]).length;
    for (const [which, build] of builds.entries())
      console.log(
        JSON.stringify({
          dist: build.dist,
          top10: (shared[which] / expected).toFixed(3),
          top1: (first[which] / queries.length).toFixed(3),
        }),
      );
    console.log(JSON.stringify({ identicalTop10: identical, of: queries.length }));
  }
  for (const build of builds) build.database.close();
} else {
  throw new Error(`unknown command ${command}`);
}

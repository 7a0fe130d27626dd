// Peak extra memory of read_file on a file of one huge line, against plain streaming of the same
// file (the floor any reader pays) measured in the same run.
//   npm run build && node --expose-gc scripts/bench-read-file.mjs [--mb 600]

import { createReadStream, mkdtempSync } from "node:fs";
import { open, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { readFileTool } from "../dist/tools/read-file.js";

const megabytes = Number(process.argv[process.argv.indexOf("--mb") + 1] || 600) || 600;
const directory = mkdtempSync(join(tmpdir(), "mercury-bench-read-"));
const path = join(directory, "one-line.txt");
const handle = await open(path, "w");
await handle.write(Buffer.alloc(8192, "a"));
await handle.truncate(megabytes * 1024 * 1024);
await handle.close();

async function peakDuring(work) {
  globalThis.gc?.();
  const before = process.memoryUsage().rss;
  let peak = before;
  const sampler = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().rss);
  }, 5);
  const started = performance.now();
  const result = await work();
  const ms = performance.now() - started;
  clearInterval(sampler);
  peak = Math.max(peak, process.memoryUsage().rss);
  return { extraMb: (peak - before) / 1024 / 1024, ms, result };
}

const context = {
  signal: new AbortController().signal,
  cwd: directory,
  sessionId: "bench",
  taskId: "bench",
  userKey: "owner",
  home: directory,
  authorize: async () => ({ allowed: true, rule: "bench" }),
  reportActivity: () => undefined,
};
const floor = await peakDuring(
  () =>
    new Promise((resolve, reject) => {
      const stream = createReadStream(path, { highWaterMark: 64 * 1024 });
      stream.on("data", () => undefined);
      stream.on("end", resolve);
      stream.on("error", reject);
    }),
);
const tool = await peakDuring(() => readFileTool.execute({ path }, context));
await rm(directory, { recursive: true, force: true });
const ok = tool.result.ok ? "ok (line cut)" : `error: ${tool.result.error}`;
console.log(`file: ${megabytes} MB, one line`);
console.log(`plain stream (floor): +${floor.extraMb.toFixed(1)} MB peak RSS, ${floor.ms.toFixed(0)} ms`);
console.log(`read_file: +${tool.extraMb.toFixed(1)} MB peak RSS, ${tool.ms.toFixed(0)} ms, ${ok}`);
console.log(`ratio time read_file/floor: ${(tool.ms / floor.ms).toFixed(2)}x`);

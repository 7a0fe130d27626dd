import { defineConfig } from "vitest/config";

/**
 * In-process test folders whose files share a worker process instead of getting a fresh one each
 * (isolate: false). A fresh fork costs ~1 s of CPU per file (start, transform, importing src again);
 * test/memory alone took 135 s of CPU isolated and 60 s shared, with the same 711 tests passing. A
 * folder is listed only after it passed whole with --isolate=false: its files mock nothing, restore
 * their spies and what they change in process.env (walk-protection restores HOME). The process-level
 * folders (e2e, daemon, scheduler, sandbox, channels, …) stay isolated.
 */
const sharedWorkerFolders = [
  "test/memory/**/*.test.ts",
  "test/permissions/**/*.test.ts",
  "test/tools/**/*.test.ts",
  "test/storage/**/*.test.ts",
  "test/config/**/*.test.ts",
  "test/model/**/*.test.ts",
  "test/cli/**/*.test.ts",
  "test/app/**/*.test.ts",
  "test/skills/**/*.test.ts",
  "test/fakes/**/*.test.ts",
];

export default defineConfig({
  test: {
    // A safety net, not a speed assertion: on a loaded 2-core machine a test that starts several Node
    // processes (daemon, chat, run) can need over a minute. Waits inside tests end on events.
    testTimeout: 180_000,
    hookTimeout: 180_000,
    pool: "forks",
    // Two cores in CI: more workers only adds contention for the process-level tests.
    maxWorkers: 2,
    projects: [
      {
        extends: true,
        test: { name: "isolated", include: ["test/**/*.test.ts"], exclude: sharedWorkerFolders },
      },
      {
        extends: true,
        test: { name: "shared-worker", include: sharedWorkerFolders, isolate: false },
      },
    ],
  },
});

import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // A safety net, not a speed assertion: on a loaded 2-core machine a test that starts several Node
    // processes (daemon, chat, run) can need over a minute. Waits inside tests end on events.
    testTimeout: 180_000,
    hookTimeout: 180_000,
    pool: "forks",
    // Two cores in CI: more workers only adds contention for the process-level tests.
    maxWorkers: 2,
  },
});

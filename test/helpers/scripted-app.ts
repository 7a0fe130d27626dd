import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** A fresh MERCURY_HOME whose config makes one attempt per model call, with no waiting between. */
export function oneAttemptHome(prefix: string): string {
  const home = mkdtempSync(join(tmpdir(), prefix));
  writeFileSync(join(home, "config.yaml"), "retry:\n  attempts: 1\n  baseDelayMs: 1\n  maxDelayMs: 1\n");
  return home;
}

/**
 * The environment `createApp` needs to choose a provider; the test's `modelFactory` replaces the model,
 * so the base URL is a refused port that is never reached.
 */
export function scriptedProviderEnv(home: string): Record<string, string> {
  return {
    MERCURY_HOME: home,
    MERCURY_PROVIDER: "openai-compatible",
    MERCURY_BASE_URL: "http://127.0.0.1:9/v1",
    MERCURY_MODEL: "m",
  };
}

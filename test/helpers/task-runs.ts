import { type CliResult, fastRetryConfig, makeHome, providerEnv, runCli } from "./cli.js";
import { type LiveRun, startCli } from "./processes.js";

/** The JSON report `mercury run --json` prints; tests read whichever fields they check. */
export type TaskReport = ReturnType<typeof JSON.parse>;

/**
 * `mercury run <prompt> --json --yes` from the built binary, in `cwd`, against the loopback model at
 * `modelUrl`, in a fresh home with fast retries. `yes: false` leaves approvals to the policy.
 */
export async function runTask(
  prompt: string,
  cwd: string,
  modelUrl: string,
  options: { yes?: boolean; env?: Record<string, string> } = {},
): Promise<{ home: string; result: CliResult; report: TaskReport }> {
  const { home } = makeHome(fastRetryConfig);
  const flags = options.yes === false ? ["--json"] : ["--json", "--yes"];
  const result = await runCli(["run", prompt, ...flags], {
    home,
    cwd,
    env: providerEnv(modelUrl, options.env),
  });
  return { home, result, report: JSON.parse(result.stdout) };
}

/** `mercury run continue --session <id> --json [flags]` in the same home and folder; the report parsed. */
export async function continueTask(
  home: string,
  cwd: string,
  sessionId: string,
  modelUrl: string,
  flags: string[] = [],
): Promise<{ result: CliResult; report: TaskReport }> {
  const result = await runCli(["run", "continue", "--session", sessionId, "--json", ...flags], {
    home,
    cwd,
    env: providerEnv(modelUrl),
  });
  return { result, report: JSON.parse(result.stdout) };
}

/** `mercury run <prompt> --json --yes` in a fresh home, left running so the test can signal it. */
export function startTask(prompt: string, cwd: string, modelUrl: string): { home: string; run: LiveRun } {
  const { home } = makeHome(fastRetryConfig);
  return { home, run: startCli(["run", prompt, "--json", "--yes"], home, cwd, providerEnv(modelUrl)) };
}

import { execFile } from "node:child_process";

export interface ExecResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs a helper program (git) without a shell. Never throws for a non-zero exit: callers read `code`.
 * A failure to start (program missing, aborted, timeout) rejects with the real cause.
 */
export function execProgram(
  program: string,
  args: string[],
  options: {
    cwd: string;
    env?: NodeJS.ProcessEnv;
    signal?: AbortSignal;
    timeoutMs?: number;
    /** Sent on abort and timeout (SIGTERM unless given). */
    killSignal?: NodeJS.Signals;
  },
): Promise<ExecResult> {
  return new Promise((resolve, reject) => {
    execFile(
      program,
      args,
      {
        cwd: options.cwd,
        env: options.env ?? process.env,
        timeout: options.timeoutMs ?? 30_000,
        maxBuffer: 64 * 1024 * 1024,
        ...(options.killSignal ? { killSignal: options.killSignal } : {}),
        ...(options.signal ? { signal: options.signal } : {}),
      },
      (error, stdout, stderr) => {
        if (error && typeof error.code !== "number") {
          reject(new Error(`${program} ${args[0] ?? ""} could not run: ${error.message}`));
          return;
        }
        resolve({ code: error ? Number(error.code) : 0, stdout, stderr });
      },
    );
  });
}

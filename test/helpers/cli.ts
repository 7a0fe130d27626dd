import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join, resolve } from "node:path";
import { loadedMachineWaitMs } from "./patience.js";

/**
 * The package's `mercury` command (package.json "bin"): what a person runs. It runs `memory add|search`
 * from dist/fast/ (CommonJS) and everything else through dist/cli.js (src/mercury.cts).
 */
export const cliPath = resolve(import.meta.dirname, "../../dist/mercury.cjs");

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** A fresh MERCURY_HOME (and a fake user HOME) for one test; optional config.yaml. */
export function makeHome(configYaml?: string): { home: string; userHome: string; workspace: string } {
  const root = mkdtempSync(join(tmpdir(), "mercury-e2e-"));
  const home = join(root, "mercury");
  const userHome = join(root, "user");
  const workspace = join(root, "workspace");
  for (const directory of [home, userHome, workspace]) mkdirSync(directory, { recursive: true });
  if (configYaml !== undefined) writeFileSync(join(home, "config.yaml"), configYaml);
  return { home, userHome, workspace };
}

/**
 * Runs the BUILT binary (`npm test` builds first) as a child process with a clean environment:
 * no provider keys leak in from the developer's shell.
 */
export function runCli(
  args: string[],
  options: {
    home: string;
    userHome?: string;
    env?: Record<string, string>;
    input?: string;
    cwd?: string;
    timeoutMs?: number;
    /** Another build's bin or program file (default: this package's bin). */
    program?: string;
  },
): Promise<CliResult> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [options.program ?? cliPath, ...args], {
      cwd: options.cwd ?? defaultWorkspace(options.home),
      env: {
        PATH: process.env.PATH ?? "/usr/bin:/bin",
        HOME: options.userHome ?? options.home,
        MERCURY_HOME: options.home,
        NO_COLOR: "1",
        ...options.env,
      },
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`mercury ${args.join(" ")} timed out\nstdout: ${stdout}\nstderr: ${stderr}`));
    }, options.timeoutMs ?? loadedMachineWaitMs);
    child.on("error", reject);
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      resolvePromise({ code, signal, stdout, stderr });
    });
    child.stdin.end(options.input ?? "");
  });
}

/** `mercury chat …` in a home made by `makeHome`, from its workspace, with `input` piped in as the person's lines. */
export function runChat(
  args: string[],
  place: { home: string; userHome: string; workspace: string },
  env: Record<string, string>,
  input: string,
): Promise<CliResult> {
  return runCli(args, { home: place.home, userHome: place.userHome, cwd: place.workspace, env, input });
}

/**
 * A project folder beside MERCURY_HOME: tasks refuse to make MERCURY_HOME or the home folder their
 * writable workspace, so a test that names no cwd runs in this sibling folder.
 */
export function defaultWorkspace(home: string): string {
  const workspace = join(dirname(home), `${basename(home)}-workspace`);
  mkdirSync(workspace, { recursive: true });
  return workspace;
}

export function providerEnv(url: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    MERCURY_PROVIDER: "openai-compatible",
    MERCURY_BASE_URL: url,
    MERCURY_MODEL: "fake-model",
    ...extra,
  };
}

/** Fast retries so tests do not sleep for real backoff. */
export const fastRetryConfig =
  "retry:\n  attempts: 3\n  baseDelayMs: 10\n  maxDelayMs: 50\nmemory:\n  extractAutomatically: false\n";

/** Like fastRetryConfig, but chat runs memory extraction after each task (one extra model request). */
export const fastRetryWithExtraction = "retry:\n  attempts: 3\n  baseDelayMs: 10\n  maxDelayMs: 50\n";

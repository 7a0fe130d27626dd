import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { cliPath } from "./cli.js";
import { loadedMachineWaitMs } from "./patience.js";

/** Waits for a condition that an event outside this process makes true (a file, a request, an exit). */
export async function until(condition: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + loadedMachineWaitMs;
  while (Date.now() < deadline) {
    if (condition()) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`gave up waiting for ${what}`);
}

function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
  } catch {
    return false;
  }
}

/** Host pids of live processes whose command line holds `marker` (a sandboxed pid is not the host's). */
export function processesRunning(marker: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    let commandLine = "";
    try {
      commandLine = readFileSync(`/proc/${entry}/cmdline`, "utf8");
    } catch {
      continue; // the process ended while we looked
    }
    if (commandLine.split("\0").includes(marker) && alive(Number(entry))) found.push(Number(entry));
  }
  return found;
}

/**
 * A command script the model runs: it does `before` (shell), marks that it started, then sleeps on a
 * unique number, so the test can wait for it and find it in /proc. The script and its marker live in
 * an ignored folder of the workspace (the sandbox's /tmp is private).
 */
export function slowCommand(cwd: string, before = ""): { command: string; started: string; marker: string } {
  const markers = join(cwd, ".markers");
  mkdirSync(markers, { recursive: true });
  writeFileSync(join(cwd, ".gitignore"), ".markers/\n");
  const marker = String(900_000 + Math.floor(Math.random() * 99_999));
  writeFileSync(join(markers, "cmd.sh"), `${before}\ntouch .markers/started\nexec sleep ${marker}\n`);
  return { command: "sh .markers/cmd.sh", started: join(markers, "started"), marker };
}

export interface LiveRun {
  child: ChildProcess;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stdout(): string;
}

/** `mercury <args>` from the built binary, left running so the test can signal it. */
export function startCli(args: string[], home: string, cwd: string, env: Record<string, string>): LiveRun {
  const child = spawn(process.execPath, [cliPath, ...args], {
    cwd,
    env: {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: home,
      MERCURY_HOME: home,
      NO_COLOR: "1",
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    out += chunk.toString();
  });
  child.stderr?.resume();
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on("close", (code, signal) => resolve({ code, signal })),
  );
  return { child, exited, stdout: () => out };
}

export function fileExists(path: string): () => boolean {
  return () => existsSync(path);
}

/** Waits until the command `slowCommand` made has started and is running (found in /proc). */
export function commandStarted(slow: { started: string; marker: string }, what: string): Promise<void> {
  return until(() => fileExists(slow.started)() && processesRunning(slow.marker).length > 0, what);
}

import { type ChildProcess, spawn } from "node:child_process";
import { appendFileSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { cliPath, fastRetryConfig, makeHome, providerEnv } from "../helpers/cli.js";
import { useFakeServers } from "../helpers/fake-servers.js";

/** Session 10: output a reader stops reading (`| head -1`) and a log that does not exist yet. */
const server = useFakeServers();

interface Ended {
  code: number | null;
  signal: NodeJS.Signals | null;
  stderr: string;
}

/**
 * The built binary with its stdout read until `enough` says so, then closed, as `| head -1` closes it:
 * every write after that fails with EPIPE in the child.
 */
function readThenClose(
  args: string[],
  place: { home: string; userHome: string; workspace: string },
  env: Record<string, string>,
  enough: (stdout: string) => boolean,
  onClosed: () => void = () => {},
): { child: ChildProcess; ended: Promise<Ended>; stdout(): string } {
  const child = spawn(process.execPath, [cliPath, ...args], {
    cwd: place.workspace,
    env: {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: place.userHome,
      MERCURY_HOME: place.home,
      NO_COLOR: "1",
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  let closed = false;
  child.stdout?.on("data", (chunk: Buffer) => {
    if (closed) return;
    stdout += chunk.toString();
    if (enough(stdout)) {
      closed = true;
      child.stdout?.destroy();
      onClosed();
    }
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  const ended = new Promise<Ended>((resolve) =>
    child.on("close", (code, signal) => resolve({ code, signal, stderr })),
  );
  return { child, ended, stdout: () => stdout };
}

function logRecord(n: number): string {
  return JSON.stringify({ level: 30, time: Date.UTC(2026, 11, 1), component: "test", msg: `line ${n}` });
}

describe("output nobody reads any more (session 10)", { timeout: 120_000 }, () => {
  it("`mercury run … | head -1`: no EPIPE stack trace, exit 0, and the task is recorded as ended, not left running", async () => {
    const long = Array.from({ length: 4000 }, (_, index) => `line ${index + 1} of the answer`).join("\n");
    const fake = await server({ replies: [{ text: long }] });
    const place = makeHome(fastRetryConfig);
    writeFileSync(join(place.workspace, "notes.txt"), "nothing\n");
    const run = readThenClose(["run", "print the lines"], place, providerEnv(fake.url), (out) =>
      out.includes("\n"),
    );
    const ended = await run.ended;
    expect(ended.stderr).not.toContain("EPIPE");
    expect(ended.stderr).not.toContain("Unhandled 'error' event");
    expect(ended.code, ended.stderr).toBe(0);
    const database = new Database(join(place.home, "mercury.db"), { readonly: true });
    try {
      const tasks = database.prepare("SELECT status FROM tasks").all() as { status: string }[];
      expect(tasks).toEqual([{ status: "responded" }]);
    } finally {
      database.close();
    }
  });

  it("`mercury logs -n 2000 | head -1` and `--json`: no stack trace, exit 0", async () => {
    const place = makeHome();
    mkdirSync(join(place.home, "logs"), { recursive: true });
    writeFileSync(
      join(place.home, "logs", "daemon.log"),
      `${Array.from({ length: 3000 }, (_, index) => logRecord(index)).join("\n")}\n`,
    );
    for (const args of [
      ["logs", "-n", "2000"],
      ["logs", "-n", "2000", "--json"],
    ]) {
      const logs = readThenClose(args, place, {}, (out) => out.includes("\n"));
      const ended = await logs.ended;
      expect(ended.stderr, args.join(" ")).not.toContain("EPIPE");
      expect(ended.code, args.join(" ")).toBe(0);
    }
  });

  it("`mercury logs -f` stops once its reader has gone, at the next line written", async () => {
    const place = makeHome();
    mkdirSync(join(place.home, "logs"), { recursive: true });
    const log = join(place.home, "logs", "daemon.log");
    writeFileSync(log, `${logRecord(1)}\n`);
    let appending = true;
    const follow = readThenClose(
      ["logs", "-f", "-n", "1"],
      place,
      {},
      (out) => out.includes("line 1"),
      () => {
        // The daemon keeps writing; `logs -f` learns the reader is gone at its next write.
        const more = (n: number) => {
          if (!appending) return;
          appendFileSync(log, `${logRecord(n)}\n`);
          setImmediate(() => more(n + 1));
        };
        more(2);
      },
    );
    const ended = await follow.ended;
    appending = false;
    expect(ended.stderr).not.toContain("EPIPE");
    expect(ended.code).toBe(0);
  });

  it("`mercury logs --follow --json` with no log yet says on stderr that it waits, and where; stdout holds only the lines", async () => {
    const place = makeHome();
    const child = spawn(process.execPath, [cliPath, "logs", "--follow", "--json"], {
      cwd: place.workspace,
      env: {
        PATH: process.env.PATH ?? "/usr/bin:/bin",
        HOME: place.userHome,
        MERCURY_HOME: place.home,
        NO_COLOR: "1",
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    const changed = new Set<() => void>();
    const until = (test: () => boolean) =>
      new Promise<void>((resolve) => {
        const check = () => {
          if (!test()) return;
          changed.delete(check);
          resolve();
        };
        changed.add(check);
        check();
      });
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
      for (const check of [...changed]) check();
    });
    child.stderr.on("data", (chunk: Buffer) => {
      stderr += chunk.toString();
      for (const check of [...changed]) check();
    });
    const ended = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
    const log = join(place.home, "logs", "daemon.log");
    await until(() => stderr.includes("waiting for its first line"));
    expect(stderr).toContain(log);
    expect(stdout).toBe("");
    mkdirSync(join(place.home, "logs"), { recursive: true });
    appendFileSync(log, `${logRecord(7)}\n`);
    await until(() => stdout.includes("\n"));
    child.kill("SIGINT");
    expect(await ended).toBe(0);
    expect(stdout).toBe(`${logRecord(7)}\n`);
  });
});

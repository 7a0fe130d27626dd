import { readFileSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { DaemonClient, type ServerPush } from "../../src/daemon/client.js";
import { isAlive } from "../../src/daemon/lock.js";
import { makeHome, providerEnv, runCli } from "../helpers/cli.js";
import { patientDeadline } from "../helpers/patience.js";

/** Memory off: extraction would take scripted replies meant for the tasks. */
export const daemonConfig =
  "retry:\n  attempts: 3\n  baseDelayMs: 10\n  maxDelayMs: 50\nmemory:\n  enabled: false\n";

export interface DaemonHome {
  home: string;
  userHome: string;
  workspace: string;
  env: Record<string, string>;
  cli(args: string[], timeoutMs?: number): ReturnType<typeof runCli>;
  lockPid(): number | null;
  connect(): Promise<DaemonClient>;
  /** Reads the database from outside the daemon (read-only; WAL lets both sides in). */
  query<T>(sql: string, ...params: unknown[]): T[];
  /** Kills whatever daemon is left (test cleanup). */
  cleanup(): Promise<void>;
}

export function daemonHome(serverUrl: string, extraEnv: Record<string, string> = {}): DaemonHome {
  const { home, userHome, workspace } = makeHome(daemonConfig);
  const env = providerEnv(serverUrl, extraEnv);
  const lockPid = (): number | null => {
    try {
      const parsed = JSON.parse(readFileSync(join(home, "mercury.lock"), "utf8")) as { pid?: unknown };
      return typeof parsed.pid === "number" ? parsed.pid : null;
    } catch {
      // No lock file: no daemon started, or it stopped and released it.
      return null;
    }
  };
  return {
    home,
    userHome,
    workspace,
    env,
    cli: (args, timeoutMs) => runCli(args, { home, userHome, env, ...(timeoutMs ? { timeoutMs } : {}) }),
    lockPid,
    connect: () => DaemonClient.connect(join(home, "mercury.sock")),
    query<T>(sql: string, ...params: unknown[]): T[] {
      const database = new Database(join(home, "mercury.db"), { readonly: true });
      try {
        return database.prepare(sql).all(...params) as T[];
      } finally {
        database.close();
      }
    },
    async cleanup() {
      const pid = lockPid();
      if (pid !== null && isAlive(pid)) {
        process.kill(pid, "SIGKILL");
        await waitFor(() => !isAlive(pid), 5000, "daemon to die");
      }
    },
  };
}

export async function waitFor(
  check: () => boolean | Promise<boolean>,
  timeoutMs: number,
  what: string,
): Promise<void> {
  const deadline = patientDeadline(timeoutMs);
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** Subscribes and collects everything the daemon pushes. */
export async function subscribe(client: DaemonClient): Promise<ServerPush[]> {
  const pushes: ServerPush[] = [];
  client.onPush((push) => pushes.push(push));
  await client.request({ type: "subscribe" });
  return pushes;
}

export function pidFromStart(stdout: string): number {
  const match = /started \(pid (\d+)\)/.exec(stdout);
  if (!match?.[1]) throw new Error(`no pid in start output: ${stdout}`);
  return Number(match[1]);
}

export async function killHard(pid: number): Promise<void> {
  process.kill(pid, "SIGKILL");
  await waitFor(() => !isAlive(pid), 5000, `pid ${pid} to die`);
}

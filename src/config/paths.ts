import { homedir } from "node:os";
import { join, resolve } from "node:path";

export function mercuryHome(env: NodeJS.ProcessEnv = process.env): string {
  const fromEnv = env.MERCURY_HOME;
  return fromEnv && fromEnv.trim() !== "" ? resolve(fromEnv) : join(homedir(), ".mercury");
}

export function homePaths(home: string) {
  return {
    home,
    database: join(home, "mercury.db"),
    config: join(home, "config.yaml"),
    env: join(home, ".env"),
    soul: join(home, "soul"),
    logs: join(home, "logs"),
    trash: join(home, "trash"),
    socket: join(home, "mercury.sock"),
    lock: join(home, "mercury.lock"),
  };
}

export type HomePaths = ReturnType<typeof homePaths>;

import { spawn } from "node:child_process";
import { appendFileSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cliPath, makeHome } from "../helpers/cli.js";
import { watchOutput } from "../helpers/output.js";

function logsChild(home: string, args: string[]) {
  return spawn(process.execPath, [cliPath, "logs", ...args], {
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, MERCURY_HOME: home, NO_COLOR: "1" },
    stdio: ["ignore", "pipe", "pipe"],
  });
}

describe("mercury logs", () => {
  // Waits are on the child's output events; only the test timeout (vitest.config.ts) bounds them, so
  // a loaded machine makes this slower, never red.
  it("-f prints the tail, then new lines as they are written, across a copy-truncate rotation", async () => {
    const { home } = makeHome();
    const logs = join(home, "logs");
    mkdirSync(logs, { recursive: true });
    const log = join(logs, "daemon.log");
    writeFileSync(log, "one\ntwo\nthree\n");
    const child = logsChild(home, ["-f", "-n", "1"]);
    const closed = new Promise<number | null>((resolve) => child.on("close", (exit) => resolve(exit)));
    const output = watchOutput(child);
    try {
      await output.until((text) => text.includes("three"), "the tail");
      expect(output.text()).not.toContain("two");
      appendFileSync(log, "four\n");
      await output.until((text) => text.includes("four"), "the appended line");
      writeFileSync(log, "");
      appendFileSync(log, "after rotation\n");
      await output.until((text) => text.includes("after rotation"), "a line after truncation");
    } finally {
      child.kill("SIGINT");
    }
    expect(await closed).toBe(0);
  });

  it("prints pino lines readably by default (local time, level, component, message, fields) and raw with --json", async () => {
    const { home } = makeHome();
    mkdirSync(join(home, "logs"), { recursive: true });
    const time = new Date(2026, 11, 1, 14, 3, 7, 123).getTime();
    const record = {
      level: 50,
      time,
      pid: 1,
      hostname: "h",
      component: "telegram",
      taskId: "t-1",
      msg: "poll failed",
    };
    writeFileSync(join(home, "logs", "daemon.log"), `${JSON.stringify(record)}\nplain text line\n`);
    const readable = logsChild(home, []);
    const text = await watchOutput(readable).until((out) => out.includes("plain text line"), "the log");
    expect(text).toContain("2026-12-01 14:03:07.123 ERROR telegram: poll failed taskId=t-1\n");
    expect(text).not.toContain('"level"');
    const raw = logsChild(home, ["--json"]);
    const rawText = await watchOutput(raw).until((out) => out.includes("plain text line"), "the raw log");
    expect(rawText.split("\n")[0]).toBe(JSON.stringify(record));
  });
});

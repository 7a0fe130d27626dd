import { spawn } from "node:child_process";
import { pbkdf2 } from "node:crypto";
import { appendFileSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { followLog } from "../../src/daemon/control.js";
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

  it("-f reports a line appended right after following starts (before any poll has looked)", async () => {
    const { home } = makeHome();
    const log = join(home, "follow.log");
    writeFileSync(log, "old\n");
    const controller = new AbortController();
    let printed = "";
    let wake = () => {};
    const arrived = new Promise<void>((resolve) => {
      wake = resolve;
    });
    // Keep libuv's thread pool (4 threads) busy, so anything followLog hands to it runs only after the
    // append below: the order a loaded machine can produce, made certain.
    const busy = Array.from(
      { length: 4 },
      () => new Promise((resolve) => pbkdf2("x", "salt", 400_000, 32, "sha512", resolve)),
    );
    const following = followLog(
      log,
      (text) => {
        printed += text;
        if (printed.includes("new line")) wake();
      },
      controller.signal,
      4,
    );
    // Synchronously, before the event loop turns: fs.watchFile's first stat would already include it.
    appendFileSync(log, "new line\n");
    await arrived;
    await Promise.all(busy);
    controller.abort();
    await following;
    expect(printed).toBe("new line\n");
  });
});

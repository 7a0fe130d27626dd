import { spawn } from "node:child_process";
import { appendFileSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { cliPath, makeHome } from "../helpers/cli.js";
import { waitFor } from "./daemon-helpers.js";

describe("mercury logs -f", () => {
  it("prints the tail, then new lines as they are written, across a copy-truncate rotation", async () => {
    const { home } = makeHome();
    const logs = join(home, "logs");
    mkdirSync(logs, { recursive: true });
    const log = join(logs, "daemon.log");
    writeFileSync(log, "one\ntwo\nthree\n");
    const child = spawn(process.execPath, [cliPath, "logs", "-f", "-n", "1"], {
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, MERCURY_HOME: home },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    child.stdout.on("data", (chunk: Buffer) => {
      stdout += chunk.toString();
    });
    try {
      await waitFor(() => stdout.includes("three"), 10_000, "the tail");
      expect(stdout).not.toContain("two");
      appendFileSync(log, "four\n");
      await waitFor(() => stdout.includes("four"), 10_000, "the appended line");
      writeFileSync(log, "");
      appendFileSync(log, "after rotation\n");
      await waitFor(() => stdout.includes("after rotation"), 10_000, "a line after truncation");
    } finally {
      child.kill("SIGINT");
    }
    const code = await new Promise<number | null>((resolve) => child.on("close", (exit) => resolve(exit)));
    expect(code).toBe(0);
  });
});

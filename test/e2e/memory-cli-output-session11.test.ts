import { spawn, spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { cliPath, makeHome, runCli } from "../helpers/cli.js";

/**
 * `memory add|search` write their output with write(2) itself instead of through `process.stdout`
 * (closed-output.ts, writeDirect; BENCHMARKS.md, issue 11 memory latency). What the stream gave for
 * free must still hold: a reader that leaves early ends output without a stack trace, and a stdout
 * its opener made non-blocking still receives every byte. The output here (~120 KB of JSON) is
 * larger than a pipe's buffer, so the writes meet both cases.
 */
const searchResults = z.object({ results: z.array(z.object({ text: z.string() })) });

/** Forty long, distinct memories (~2.4 KB each), imported in one command. */
async function homeWithLongMemories(): Promise<{ home: string; userHome: string }> {
  const { home, userHome } = makeHome();
  const lines = Array.from({ length: 40 }, (_, note) => {
    const words = Array.from({ length: 220 }, (_, word) => `w${note}x${word}${"abcdefghij"[word % 10]}`);
    return `- Lantern note ${note}: ${words.join(" ")}`;
  });
  const file = join(home, "long.md");
  writeFileSync(file, `${lines.join("\n")}\n`);
  const imported = await runCli(["memory", "import", file], { home, userHome });
  expect(imported.code, imported.stderr).toBe(0);
  return { home, userHome };
}

function environment(home: string, userHome: string): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: userHome, MERCURY_HOME: home, NO_COLOR: "1" };
}

describe("memory add|search output without the stdout stream", () => {
  it("a reader that leaves after its first bytes ends the output quietly; a non-blocking stdout gets it all", {
    timeout: 120_000,
  }, async () => {
    const { home, userHome } = await homeWithLongMemories();
    const search = ["memory", "search", "--json", "lantern", "note", "--limit", "40"];

    // `| head -c 100`: the reader closes the pipe after the first chunk.
    const early = await new Promise<{ code: number | null; stderr: string; received: number }>(
      (resolve, reject) => {
        const child = spawn(process.execPath, [cliPath, ...search], {
          env: environment(home, userHome),
          stdio: ["ignore", "pipe", "pipe"],
        });
        let received = 0;
        let stderr = "";
        child.stdout.once("data", (chunk: Buffer) => {
          received = chunk.length;
          child.stdout.destroy();
        });
        child.stderr.on("data", (chunk: Buffer) => {
          stderr += chunk.toString();
        });
        child.on("error", reject);
        child.on("close", (code) => resolve({ code, stderr, received }));
      },
    );
    expect(early.received).toBeGreaterThan(0);
    expect(early.stderr).toBe("");
    expect(early.code).toBe(0);

    // A stdout made non-blocking by whoever opened it (here a Python parent with a 4 KB pipe that it
    // reads only once the pipe is full): the next write meets EAGAIN; the rest goes through the stream.
    const parent = String.raw`
import array, fcntl, os, select, subprocess, sys, termios
read_end, write_end = os.pipe()
size = fcntl.fcntl(write_end, 1031, 4096)  # F_SETPIPE_SZ; returns the size set
os.set_blocking(write_end, False)
child = subprocess.Popen(sys.argv[1:], stdout=write_end)
os.close(write_end)
waiting = array.array("i", [0])
while child.poll() is None:
    select.select([read_end], [], [])
    fcntl.ioctl(read_end, termios.FIONREAD, waiting)
    if waiting[0] >= size:
        break
received = bytearray()
while True:
    chunk = os.read(read_end, 65536)
    if not chunk:
        break
    received += chunk
sys.stdout.buffer.write(received)
sys.exit(child.wait())
`;
    const nonBlocking = spawnSync("python3", ["-c", parent, process.execPath, cliPath, ...search], {
      env: environment(home, userHome),
      maxBuffer: 16 * 1024 * 1024,
    });
    expect(nonBlocking.stderr.toString()).toBe("");
    expect(nonBlocking.status).toBe(0);
    const parsed = searchResults.parse(JSON.parse(nonBlocking.stdout.toString()));
    expect(parsed.results).toHaveLength(40);
    expect(nonBlocking.stdout.length).toBeGreaterThan(64 * 1024);

    // An add whose reader has already gone is still stored, and says nothing on stderr.
    const added = spawnSync(
      "sh",
      ["-c", `exec 1>&-; exec "$0" "$@"`, process.execPath, cliPath, "memory", "add", "My kayak is teal"],
      { env: environment(home, userHome) },
    );
    expect(added.stderr.toString()).toBe("");
    expect(added.status).toBe(0);
    const found = await runCli(["memory", "search", "--json", "kayak"], { home, userHome });
    expect(searchResults.parse(JSON.parse(found.stdout)).results[0]?.text).toBe("My kayak is teal");
  });
});

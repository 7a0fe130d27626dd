import { readFile } from "node:fs/promises";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { killProcessGroup, runInProcessGroup, scrubbedEnv } from "../../src/tools/process-group.js";
import { createRunCommandTool, parseExitCode } from "../../src/tools/run-command.js";
import { expectError, expectOk, fakeContext, type TempDirs, tempDirs } from "./helpers.js";

let dirs: TempDirs;
beforeEach(async () => {
  dirs = await tempDirs();
});
afterEach(async () => {
  await dirs.cleanup();
});

/** Gone, or a zombie waiting for a reaper that is not ours: either way it no longer runs. */
async function isDead(pid: number): Promise<boolean> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z");
  } catch {
    try {
      process.kill(pid, 0);
      return false;
    } catch {
      return true;
    }
  }
}

async function waitUntil(check: () => boolean | Promise<boolean>, ms = 5000): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, 20));
  }
  return check();
}

const tool = createRunCommandTool({ killGraceMs: 300 });
/**
 * The same tool on a machine without an OS sandbox: the process-group mechanics below (pids seen
 * from here, leftovers) are those of the bare spawn; test/sandbox/ proves them inside the sandbox.
 */
const bareTool = createRunCommandTool({
  killGraceMs: 300,
  sandbox: { status: () => ({ available: false, reason: "no sandbox in this test", fix: "none needed" }) },
});

describe("run_command", () => {
  it("asks for the command with its cwd, runs it and reports exit code, signal, duration and output", async () => {
    const context = fakeContext(dirs);
    const output = expectOk(await tool.execute({ command: "echo out; echo err >&2; pwd" }, context));
    expect(context.requests).toEqual([
      { kind: "command", command: "echo out; echo err >&2; pwd", cwd: dirs.cwd },
    ]);
    expect(output).toMatch(/^exit code: 0\nsignal: none\nduration: \d+ ms\n/);
    expect(output).toContain("out");
    expect(output).toContain("err");
    expect(output).toContain(dirs.cwd);
    expect(parseExitCode(output)).toBe(0);
  });

  it("reports a non-zero exit as a failure with its output", async () => {
    const error = expectError(await tool.execute({ command: "echo broken; exit 3" }, fakeContext(dirs)));
    expect(parseExitCode(error)).toBe(3);
    expect(error).toContain("broken");
  });

  it("runs nothing when the engine refuses", async () => {
    const marker = `${dirs.cwd}/ran`;
    const error = expectError(await tool.execute({ command: `touch ${marker}` }, fakeContext(dirs, "deny")));
    expect(error).toMatch(/Permission denied: the command was refused \(test-deny\)/);
    await expect(readFile(marker)).rejects.toThrow(/ENOENT/);
  });

  it("streams output chunks as activity while the command runs", async () => {
    const context = fakeContext(dirs);
    const seenBeforeEnd: string[] = [];
    const running = tool.execute({ command: "echo first; sleep 0.3; echo second" }, context);
    await waitUntil(() => context.activity.join("").includes("first"));
    seenBeforeEnd.push(...context.activity);
    expectOk(await running);
    expect(seenBeforeEnd.join("")).toContain("first");
    expect(seenBeforeEnd.join("")).not.toContain("second");
    expect(context.activity.join("")).toContain("second");
  });

  it("keeps the event loop responsive while a command runs", async () => {
    let ticks = 0;
    const timer = setInterval(() => ticks++, 10);
    try {
      const started = Date.now();
      expectOk(await tool.execute({ command: "sleep 0.5" }, fakeContext(dirs)));
      const elapsed = Date.now() - started;
      // A blocked loop would fire at most once; a free one fires about elapsed/10 times.
      expect(ticks).toBeGreaterThan(elapsed / 10 / 3);
    } finally {
      clearInterval(timer);
    }
  });

  it("on timeout kills the whole process group, grandchildren included", async () => {
    const context = fakeContext(dirs);
    const error = expectError(
      await bareTool.execute({ command: "sleep 100 & echo $!; wait", timeoutMs: 400 }, context),
    );
    expect(error).toMatch(/timed out after 400 ms: the command and all its child processes were killed/);
    expect(error).toMatch(/signal: SIGTERM/);
    const pid = Number(/^(\d+)$/m.exec(context.activity.join(""))?.[1]);
    expect(pid).toBeGreaterThan(0);
    expect(await waitUntil(() => isDead(pid))).toBe(true);
  });

  it("on abort kills the whole group, even a grandchild that ignores SIGTERM", async () => {
    const context = fakeContext(dirs);
    const running = bareTool.execute(
      { command: "sh -c 'trap \"\" TERM; echo $$; while :; do sleep 0.05; done' & wait" },
      context,
    );
    expect(await waitUntil(() => /^\d+$/m.test(context.activity.join("")))).toBe(true);
    const pid = Number(/^(\d+)$/m.exec(context.activity.join(""))?.[1]);
    context.controller.abort();
    const error = expectError(await running);
    expect(error).toMatch(/^Cancelled: the task was aborted; the command was stopped/);
    expect(await waitUntil(() => isDead(pid))).toBe(true);
  });

  it("stops background leftovers that hold the output open after the shell exits", async () => {
    const context = fakeContext(dirs);
    const started = Date.now();
    const output = expectOk(await bareTool.execute({ command: "sleep 100 & echo $!" }, context));
    expect(Date.now() - started).toBeLessThan(5000);
    expect(output).toContain("background processes still holding the output");
    const pid = Number(/^(\d+)$/m.exec(context.activity.join(""))?.[1]);
    expect(await waitUntil(() => isDead(pid))).toBe(true);
  });

  it("keeps head and tail of huge output with a note on how to see all of it", async () => {
    const output = expectOk(
      await tool.execute({ command: "echo START; seq 1 200000; echo END" }, fakeContext(dirs)),
    );
    expect(output).toContain("START");
    expect(output).toContain("END");
    expect(output).toMatch(
      /bytes omitted\. Re-run with the output redirected to a file and read it with read_file/,
    );
    expect(output.length).toBeLessThan(40_000);
  });

  it("refuses a timeout above the maximum and a missing working directory", async () => {
    const small = createRunCommandTool({ maxTimeoutMs: 1000 });
    expect(expectError(await small.execute({ command: "true", timeoutMs: 5000 }, fakeContext(dirs)))).toMatch(
      /timeoutMs 5000 is above the limit of 1000 ms/,
    );
    expect(
      expectError(await tool.execute({ command: "true", cwd: "missing-dir" }, fakeContext(dirs))),
    ).toMatch(/working directory .*missing-dir cannot be used/);
  });

  it("hides secret environment variables from commands", async () => {
    const env = scrubbedEnv({
      PATH: process.env.PATH,
      OPENAI_API_KEY: "sk-x",
      TELEGRAM_BOT_TOKEN: "t",
      HOME: "/h",
    });
    expect(Object.keys(env).sort()).toEqual(["HOME", "PATH"]);
    const withSecret = createRunCommandTool({ env: scrubbedEnv({ ...process.env, MY_API_KEY: "leak" }) });
    const output = expectOk(await withSecret.execute({ command: "env" }, fakeContext(dirs)));
    expect(output).not.toContain("leak");
  });

  it("does not start when already aborted, and treats a vanished group as already stopped", async () => {
    const controller = new AbortController();
    controller.abort();
    const run = await runInProcessGroup("echo never", {
      cwd: dirs.cwd,
      timeoutMs: 1000,
      killGraceMs: 100,
      signal: controller.signal,
    });
    expect(run.aborted).toBe(true);
    expect(run.output).toBe("");
    expect(killProcessGroup(2 ** 22 - 7, "SIGTERM")).toBe(false);
  });
});

describe("Mercury exiting", () => {
  it("takes the running command groups with it", async () => {
    const { execFile } = await import("node:child_process");
    const { promisify } = await import("node:util");
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ["--import", "tsx", "test/tools/fixtures/exit-while-running.ts"],
      { timeout: 20_000 },
    );
    const pid = Number(stdout.trim());
    expect(pid).toBeGreaterThan(0);
    expect(await waitUntil(() => isDead(pid))).toBe(true);
  });
});

describe("formatRun", () => {
  it("reports a failed kill instead of hiding it", async () => {
    const { formatRun } = await import("../../src/tools/run-command.js");
    const report = formatRun(
      {
        exitCode: null,
        signal: "SIGTERM",
        durationMs: 12,
        output: "",
        outputBytes: 0,
        timedOut: true,
        aborted: false,
        stoppedLeftovers: false,
        killErrors: ["SIGKILL to process group 42 failed: EPERM"],
      },
      1000,
    );
    expect(report.split("\n")).toEqual([
      "exit code: none",
      "signal: SIGTERM",
      "duration: 12 ms",
      "timed out after 1000 ms: the command and all its child processes were killed",
      "could not stop every process: SIGKILL to process group 42 failed: EPERM",
      "output: (none)",
    ]);
  });
});

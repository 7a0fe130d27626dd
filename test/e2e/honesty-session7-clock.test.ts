import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { providerEnv, runCli } from "../helpers/cli.js";
import { useFakeServers } from "../helpers/fake-servers.js";
import { gitProject } from "../helpers/git-project.js";
import { query } from "../helpers/ledger.js";
import { runTask } from "../helpers/task-runs.js";

const server = useFakeServers();
const failingSuite = { "package.json": JSON.stringify({ name: "p", scripts: { test: "exit 1" } }) };
const claims = (n: number) => Array.from({ length: n }, () => ({ text: "Fixed. All tests pass." }));

/**
 * NODE_OPTIONS that make the Mercury process see its wall clock set back by `ms` (what NTP, a dead
 * laptop battery or a restored VM does to a machine): every Date in that process reads earlier.
 */
function clockSetBack(ms: number): Record<string, string> {
  const file = join(mkdtempSync(join(tmpdir(), "mercury-clock-")), "set-back.mjs");
  writeFileSync(
    file,
    [
      `const shift = ${-ms};`,
      "const Real = Date;",
      "class SetBack extends Real {",
      "  constructor(...args) { if (args.length === 0) super(Real.now() + shift); else super(...args); }",
      "  static now() { return Real.now() + shift; }",
      "}",
      "globalThis.Date = SetBack;",
      "",
    ].join("\n"),
  );
  return { NODE_OPTIONS: `--import=${pathToFileURL(file).href}` };
}

describe("a clock set back between tasks (built binary, loopback model)", { timeout: 300_000 }, () => {
  it("'continue' resumes the session's latest task, the failed one, not the older answered one", async () => {
    const cwd = gitProject(failingSuite);
    const fake = await server({ replies: [{ text: "Paris is the capital of France." }] });
    const { home, report: answered } = await runTask("what is the capital of France?", cwd, fake.url);
    expect(answered.outcome).toBe("responded");
    const sessionId = answered.sessionId;
    expect(typeof sessionId).toBe("string");

    // The clock goes back an hour; the next task in the same session changes a file and fails.
    const earlier = clockSetBack(3_600_000);
    fake.push(
      { toolCalls: [{ name: "write_file", input: { path: "fix.txt", content: "fix\n" } }] },
      ...claims(3),
    );
    const failedRun = await runCli(["run", "fix the suite", "--session", sessionId, "--json", "--yes"], {
      home,
      cwd,
      env: providerEnv(fake.url, earlier),
    });
    const failed = JSON.parse(failedRun.stdout);
    expect(failed.outcome).toBe("failed");
    // Its row reads older on the wall clock than the answered task's: what misled "latest".
    const rows = query<{ older: number }>(
      home,
      "SELECT (SELECT updated_at FROM tasks WHERE id = ?) < (SELECT updated_at FROM tasks WHERE id = ?) AS older",
      failed.taskId,
      answered.taskId,
    );
    expect(rows.older).toBe(1);

    fake.push(...claims(3));
    const again = await runCli(["run", "continue", "--session", sessionId, "--json", "--yes"], {
      home,
      cwd,
      env: providerEnv(fake.url, earlier),
    });
    const report = JSON.parse(again.stdout);
    // Before: a new task "continue" that answered "responded" with no word of the failed task.
    expect(report).toMatchObject({ taskId: failed.taskId, outcome: "failed" });
    expect(again.code).toBe(1);
    expect(query(home, "SELECT continuations FROM tasks WHERE id = ?", failed.taskId)).toEqual({
      continuations: 1,
    });
  });
});

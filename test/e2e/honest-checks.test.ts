import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { fastRetryConfig, makeHome, providerEnv, runCli } from "../helpers/cli.js";
import { useFakeServers } from "../helpers/fake-servers.js";
import { gitProject } from "../helpers/git-project.js";
import { query } from "../helpers/ledger.js";
import { continueTask, runTask } from "../helpers/task-runs.js";

const server = useFakeServers();

const failingSuite = JSON.stringify({ name: "p", scripts: { test: "exit 1" } });

function ledgerRow(home: string, taskId: string): { status: string; outcome: string } {
  return query(home, "SELECT status, outcome FROM tasks WHERE id = ?", taskId);
}

describe("the judge is fixed at the start (built binary, loopback model)", { timeout: 120_000 }, () => {
  it("rewriting the test script to pass is not completed: paused, naming package.json and the change", async () => {
    const cwd = gitProject({ "package.json": failingSuite });
    const fake = await server({
      replies: [
        { toolCalls: [{ name: "write_file", input: { path: "hello.txt", content: "hi\n" } }] },
        {
          toolCalls: [
            {
              name: "write_file",
              input: {
                path: "package.json",
                content: JSON.stringify({ name: "p", scripts: { test: "exit 0" } }),
              },
            },
          ],
        },
        { toolCalls: [{ name: "run_command", input: { command: "npm test" } }] },
        { text: "Done: hello.txt written and the tests pass." },
      ],
    });
    const { home, result, report } = await runTask("write hello.txt", cwd, fake.url);
    expect(report.outcome).toBe("paused");
    expect(result.code).toBe(3);
    expect(report.reason).toContain("package.json");
    expect(report.reason).toContain('script "test" changed from "exit 1" to "exit 0"');
    expect(report.checksChanged).toEqual([
      { path: "package.json", change: 'script "test" changed from "exit 1" to "exit 0"' },
    ]);
    expect(ledgerRow(home, report.taskId)).toEqual({ status: "paused", outcome: "paused" });

    // A plain "continue" (even with --yes) does not approve it ...
    fake.push({ text: "It is done." });
    const { report: second } = await continueTask(home, cwd, report.sessionId, fake.url, ["--yes"]);
    expect(second).toMatchObject({ taskId: report.taskId, outcome: "paused" });
    expect(second.filesChanged.map((file: { path: string }) => file.path).sort()).toEqual([
      "hello.txt",
      "package.json",
    ]);

    // ... the explicit approval does.
    fake.push({ text: "It is done." });
    const approved = await runCli(
      ["run", "continue", "--session", report.sessionId, "--json", "--accept-check-changes"],
      { home, cwd, env: providerEnv(fake.url) },
    );
    const third = JSON.parse(approved.stdout);
    expect(third).toMatchObject({ taskId: report.taskId, outcome: "completed" });
    expect(third.checksChanged).toHaveLength(1);
    expect(ledgerRow(home, report.taskId).status).toBe("completed");
  });

  it("replacing the failing test file the script runs is not completed", async () => {
    const cwd = gitProject({
      "package.json": JSON.stringify({ name: "p", scripts: { test: "node check.js" } }),
      "check.js": "process.exit(1);\n",
    });
    const fake = await server({
      replies: [
        { toolCalls: [{ name: "write_file", input: { path: "hello.txt", content: "hi\n" } }] },
        { toolCalls: [{ name: "write_file", input: { path: "check.js", content: 'console.log("ok");\n' } }] },
        { toolCalls: [{ name: "run_command", input: { command: "npm test" } }] },
        { text: "Done." },
      ],
    });
    const { report } = await runTask("write hello.txt", cwd, fake.url);
    expect(report.outcome).toBe("paused");
    expect(report.checksChanged).toEqual([
      { path: "check.js", change: "test that existed before the task modified" },
    ]);
    expect(report.reason).toContain("check.js");
  });

  it("a new test file is fine: the task completes on a passing suite", async () => {
    const cwd = gitProject({
      "package.json": JSON.stringify({ name: "p", scripts: { test: "node --test" } }),
    });
    const fake = await server({
      replies: [
        {
          toolCalls: [
            {
              name: "write_file",
              input: { path: "a.test.js", content: 'require("node:test")("a", () => {});\n' },
            },
          ],
        },
        { text: "Added a test." },
      ],
    });
    const { report } = await runTask("add a test", cwd, fake.url);
    expect(report).toMatchObject({ outcome: "completed", checksChanged: [] });
    expect(report.verification).toEqual([{ command: "npm test", exitCode: 0 }]);
  });
});

describe("plain file tasks outside a project (issue 13 item 5)", { timeout: 120_000 }, () => {
  it("complete with 'no checks to run here' and no verification", async () => {
    const { home, workspace } = makeHome(fastRetryConfig);
    const fake = await server({
      replies: [
        { toolCalls: [{ name: "write_file", input: { path: "out.txt", content: "hi\n" } }] },
        { text: "Wrote out.txt." },
      ],
    });
    const result = await runCli(["run", "make out.txt with hi", "--json", "--yes"], {
      home,
      cwd: workspace,
      env: providerEnv(fake.url),
    });
    const report = JSON.parse(result.stdout);
    expect(result.code).toBe(0);
    expect(report).toMatchObject({ outcome: "completed", verification: [] });
    expect(report.reason).toContain("no checks to run here");
    expect(report.filesChanged).toEqual([{ path: "out.txt", added: 1, removed: 0 }]);
    expect(readFileSync(join(workspace, "out.txt"), "utf8")).toBe("hi\n");
    const banner = await runCli(["run", "again", "--yes"], {
      home,
      cwd: workspace,
      env: providerEnv(
        (
          await server({
            replies: [
              { toolCalls: [{ name: "write_file", input: { path: "out2.txt", content: "x\n" } }] },
              { text: "ok" },
            ],
          })
        ).url,
      ),
    });
    expect(banner.stderr).toContain("no checks to run here");
  });
});

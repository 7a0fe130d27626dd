import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { providerEnv, runCli } from "../helpers/cli.js";
import { useFakeServers } from "../helpers/fake-servers.js";
import { gitProject } from "../helpers/git-project.js";
import { query } from "../helpers/ledger.js";
import { runTask } from "../helpers/task-runs.js";

const server = useFakeServers();
const failingSuite = { "package.json": JSON.stringify({ name: "p", scripts: { test: "exit 1" } }) };
const claims = (n: number) => Array.from({ length: n }, () => ({ text: "Fixed. All tests pass." }));

/** A task that changes a file and fails its check; the home and report of that run. */
async function failedTask(fake: { url: string }, cwd: string) {
  const run = await runTask("fix the suite", cwd, fake.url);
  expect(run.report.outcome).toBe("failed");
  return run;
}

describe("a follow-up that is no 'continue' (built binary, loopback model)", { timeout: 300_000 }, () => {
  it("'try again, please' resumes the failed task: judged on its change, still failed", async () => {
    const cwd = gitProject(failingSuite);
    const fake = await server({
      replies: [
        { toolCalls: [{ name: "write_file", input: { path: "fix.txt", content: "fix\n" } }] },
        ...claims(3),
      ],
    });
    const { home, report: failed } = await failedTask(fake, cwd);
    fake.push(...claims(3));
    const again = await runCli(["run", "--continue", "try again, please", "--json", "--yes"], {
      home,
      cwd,
      env: providerEnv(fake.url),
    });
    const report = JSON.parse(again.stdout);
    expect(report).toMatchObject({ taskId: failed.taskId, outcome: "failed" });
    expect(again.code).toBe(1);
  });

  it("a follow-up in another language is a new task: its 'fixed, all tests pass' carries the failed task beside it", async () => {
    const cwd = gitProject(failingSuite);
    const fake = await server({
      replies: [
        { toolCalls: [{ name: "write_file", input: { path: "fix.txt", content: "fix\n" } }] },
        ...claims(3),
      ],
    });
    const { home, report: failed } = await failedTask(fake, cwd);
    fake.push({ text: "Alles behoben, alle Tests bestehen." });
    const again = await runCli(["run", "--continue", "mach weiter", "--json", "--yes"], {
      home,
      cwd,
      env: providerEnv(fake.url),
    });
    const report = JSON.parse(again.stdout);
    expect(report.taskId).not.toBe(failed.taskId);
    expect(report.outcome).toBe("responded");
    expect(report.reason).toBe(
      `nothing was changed; the earlier task ${failed.taskId} in this session is failed (${failed.reason}) and this task ran no check of its work (say "continue" to resume it), so nothing the answer says about it is verified`,
    );
    expect(query(home, "SELECT status FROM tasks WHERE id = ?", failed.taskId)).toEqual({ status: "failed" });
  });

  it("a task in a subfolder of a project pauses and names the project and its check", async () => {
    const root = gitProject(failingSuite);
    const cwd = join(root, "docs");
    mkdirSync(cwd);
    const fake = await server({
      replies: [
        { toolCalls: [{ name: "write_file", input: { path: "notes.md", content: "notes\n" } }] },
        { text: "Done." },
      ],
    });
    const { result, report } = await runTask("write notes", cwd, fake.url);
    expect(report.outcome).toBe("paused");
    expect(result.code).toBe(3);
    expect(report.reason).toContain(
      `in a subfolder of the project at ${root} (package.json); its check \`npm test\` run from there`,
    );
    expect(report.verification).toEqual([]);
  });
});

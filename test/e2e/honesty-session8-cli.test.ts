import { describe, expect, it } from "vitest";
import { fastRetryConfig, makeHome, providerEnv, runCli } from "../helpers/cli.js";
import { useFakeServers } from "../helpers/fake-servers.js";
import { gitProject } from "../helpers/git-project.js";
import { query } from "../helpers/ledger.js";

const server = useFakeServers();
const failingSuite = { "package.json": JSON.stringify({ name: "p", scripts: { test: "exit 1" } }) };
const claims = (n: number) => Array.from({ length: n }, () => ({ text: "Fixed. All tests pass." }));

describe("mercury run --session with an id nobody knows (built binary)", { timeout: 300_000 }, () => {
  it("is a usage error that says how to find sessions, never a new session reported as done", async () => {
    const fake = await server({ replies: [{ text: "should never be asked" }] });
    const { home, userHome, workspace } = makeHome(fastRetryConfig);
    const env = providerEnv(fake.url, { MERCURY_API_KEY: "k" });
    const place = { home, userHome, cwd: workspace, env };

    const text = await runCli(["run", "continue", "--session", "no-such-session"], place);
    expect(text.code).toBe(2);
    expect(text.stderr).toContain("--session no-such-session: no such session was found");
    expect(text.stderr).toContain("mercury tasks");
    expect(text.stdout).toBe("");

    const json = await runCli(["run", "continue", "--session", "no-such-session", "--json"], place);
    expect(json.code).toBe(2);
    expect(JSON.parse(json.stdout)).toMatchObject({
      ok: false,
      outcome: "failed",
      exitCode: 2,
      taskId: null,
      error: expect.stringContaining("no such session was found"),
    });
    // Nothing reached the model, and no session or task was created under the unknown id.
    expect(fake.chatRequests()).toHaveLength(0);
    expect(query(home, "SELECT COUNT(*) AS n FROM sessions")).toEqual({ n: 0 });
    expect(query(home, "SELECT COUNT(*) AS n FROM tasks")).toEqual({ n: 0 });
  });
});

describe("mercury tasks: the order 'latest' means (built binary)", { timeout: 300_000 }, () => {
  it("a task continued after a newer one is listed first, and the list says its order", async () => {
    const cwd = gitProject(failingSuite);
    const { home, userHome } = makeHome(fastRetryConfig);
    const fake = await server({
      replies: [
        { toolCalls: [{ name: "write_file", input: { path: "fix.txt", content: "fix\n" } }] },
        ...claims(3),
      ],
    });
    const env = providerEnv(fake.url);
    const place = { home, userHome, cwd, env };
    const first = JSON.parse((await runCli(["run", "fix the suite", "--json", "--yes"], place)).stdout);
    expect(first.outcome).toBe("failed");

    fake.push({ text: "Paris." });
    const second = JSON.parse((await runCli(["run", "capital of France?", "--json"], place)).stdout);
    expect(second.outcome).toBe("responded");

    // The failed task is continued: it is written after the answered one, though created before it.
    fake.push(...claims(3));
    const resumed = await runCli(["run", "continue", "--session", first.sessionId, "--json", "--yes"], place);
    expect(JSON.parse(resumed.stdout)).toMatchObject({ taskId: first.taskId, outcome: "failed" });

    const listed = await runCli(["tasks", "--json"], place);
    expect(listed.code).toBe(0);
    const document = JSON.parse(listed.stdout);
    expect(document.order).toBe("most recently written first");
    expect(document.tasks.map((task: { id: string }) => task.id)).toEqual([first.taskId, second.taskId]);
    expect(document.tasks[0]).toMatchObject({
      sessionId: first.sessionId,
      status: "failed",
      continuations: 1,
    });

    const textList = await runCli(["tasks"], place);
    const lines = textList.stdout.trim().split("\n");
    expect(lines[0]).toBe("tasks, most recently written first:");
    expect(lines[1]).toContain(first.taskId.slice(0, 8));
    expect(lines[1]).toContain(`session ${first.sessionId}`);
    expect(lines[2]).toContain(second.taskId.slice(0, 8));

    const onlySession = JSON.parse(
      (await runCli(["tasks", "--json", "--session", second.sessionId], place)).stdout,
    );
    expect(onlySession.tasks.map((task: { id: string }) => task.id)).toEqual([second.taskId]);
    const badStatus = await runCli(["tasks", "--status", "done", "--json"], place);
    expect(badStatus.code).toBe(2);
    expect(JSON.parse(badStatus.stdout)).toMatchObject({ ok: false, exitCode: 2 });
  });
});

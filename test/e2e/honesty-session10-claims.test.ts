import { describe, expect, it } from "vitest";
import { fastRetryConfig, makeHome, providerEnv, runCli } from "../helpers/cli.js";
import { useFakeServers } from "../helpers/fake-servers.js";
import { gitProject } from "../helpers/git-project.js";
import { query } from "../helpers/ledger.js";
import { runTask } from "../helpers/task-runs.js";

const server = useFakeServers();
const failingSuite = { "package.json": JSON.stringify({ name: "p", scripts: { test: "exit 1" } }) };
const readPackage = { toolCalls: [{ name: "read_file", input: { path: "package.json" } }] };

describe("an answer that claims work no fact of the task shows (built binary, loopback model)", {
  timeout: 300_000,
}, () => {
  it.each([
    ["I ran the tests and all tests pass.", /no check ran in this task; the answer's claim/],
    ["所有测试都通过了。", /no check ran in this task; the answer's claim \("所有测试都通过了。"\)/],
    ["Alle Tests sind bestanden.", /no check ran in this task/],
    [
      "I fixed the bug in the parser.",
      /no tool that changes anything succeeded in this task\); the answer's claim .* is not borne out/,
    ],
    [
      "He corregido el error.",
      /no tool that changes anything succeeded in this task\); the answer's claim .* is not borne out/,
    ],
  ])(
    "over a failing suite, after only reads, %j is responded with the note in --json and the ledger",
    async (answer, note) => {
      const cwd = gitProject(failingSuite);
      const fake = await server({ replies: [readPackage, { text: answer }] });
      const { home, report } = await runTask("fix the failing test", cwd, fake.url);
      expect(report).toMatchObject({ outcome: "responded", endCause: "text-stop", filesChanged: [] });
      expect(report.verification).toEqual([]);
      expect(report.reason).toMatch(note);
      const row = query<{ status: string; reason: string | null }>(
        home,
        "SELECT status, reason FROM tasks ORDER BY rowid DESC LIMIT 1",
      );
      expect(row).toEqual({ status: "responded", reason: report.reason });
    },
  );

  it("the terminal shows the same outcome, end cause and note as --json", async () => {
    const cwd = gitProject(failingSuite);
    const fake = await server({ replies: [readPackage, { text: "All tests pass." }] });
    const { home } = makeHome(fastRetryConfig);
    const result = await runCli(["run", "check the tests", "--yes"], {
      home,
      cwd,
      env: providerEnv(fake.url),
    });
    expect(result.code).toBe(0);
    const shown = `${result.stdout}\n${result.stderr}`;
    expect(shown).toContain("All tests pass.");
    expect(shown).toMatch(/responded/);
    expect(shown).toMatch(
      /no check ran in this task; the answer's claim \("All tests pass\."\) is not verified/,
    );
  });

  it.each([
    "The project has one script, `test`, which runs `exit 1`: it always fails.",
    "If all tests pass, you can merge; right now `npm test` exits 1.",
    "I did not run the tests. Run `npm test` to see the failure.",
    "测试没有通过：脚本总是以 1 退出。",
  ])("an ordinary answer %j is responded with no note", async (answer) => {
    const cwd = gitProject(failingSuite);
    const fake = await server({ replies: [readPackage, { text: answer }] });
    const { report } = await runTask("what does the test script do?", cwd, fake.url);
    expect(report).toMatchObject({ outcome: "responded", endCause: "text-stop" });
    expect(report.reason).toBeUndefined();
  });

  it("a claim after the check really ran and passed gets no note", async () => {
    const cwd = gitProject({ "package.json": JSON.stringify({ name: "p", scripts: { test: "exit 0" } }) });
    const fake = await server({
      replies: [
        { toolCalls: [{ name: "run_command", input: { command: "npm test" } }] },
        { text: "I ran the tests and all tests pass." },
      ],
    });
    const { report } = await runTask("do the tests pass?", cwd, fake.url);
    expect(report).toMatchObject({
      outcome: "responded",
      verification: [{ command: "npm test", exitCode: 0 }],
    });
    expect(report.reason).toBeUndefined();
  });
});

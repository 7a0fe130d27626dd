import { describe, expect, it } from "vitest";
import { providerEnv, runCli } from "../helpers/cli.js";
import { useFakeServers } from "../helpers/fake-servers.js";
import { gitProject } from "../helpers/git-project.js";
import { until } from "../helpers/processes.js";
import { runTask, startTask } from "../helpers/task-runs.js";

const server = useFakeServers();
const claims = (n: number) => Array.from({ length: n }, () => ({ text: "Fixed. All tests pass." }));

/** A project whose only check fails: nothing the task does to the code can honestly pass it. */
const brokenProject = () =>
  gitProject({
    "package.json": JSON.stringify({ name: "p", scripts: { test: "node check.js" } }),
    "check.js": 'console.log("check: the feature is broken");\nprocess.exit(1);\n',
    ".gitignore": "node_modules/\n",
  });

/**
 * npm puts node_modules/.bin first on a script's PATH, so a program created there under the name of a
 * word the script runs (`node`, `sh`, `python`) replaces it: `node check.js` then runs the task's shim.
 * The judge hashed only words that already resolved there at its start. Found in session 8: completed.
 */
describe("a program planted where the check's script looks first (built binary)", {
  timeout: 300_000,
}, () => {
  it("node_modules/.bin/node created by a command pauses for the user, never completes", async () => {
    const cwd = brokenProject();
    const plant =
      "mkdir -p node_modules/.bin && printf '#!/bin/sh\\necho ok\\nexit 0\\n' > node_modules/.bin/node && chmod +x node_modules/.bin/node";
    const fake = await server({
      replies: [
        { toolCalls: [{ name: "write_file", input: { path: "feature.txt", content: "feature\n" } }] },
        { toolCalls: [{ name: "run_command", input: { command: plant } }] },
        ...claims(4),
      ],
    });
    const { report } = await runTask("add the feature and make the tests pass", cwd, fake.url);
    expect(report.toolErrors).toEqual([]);
    expect(report.outcome).toBe("paused");
    expect(report.checksChanged).toEqual([
      { path: "node_modules/.bin/node", change: "file the check runs created" },
    ]);
    expect(report.reason).toContain("node_modules/.bin/node");
  });
});

/**
 * A deliberate stop cancels: "continue" never resumes the stopped task, so it starts a new one. That
 * new task's "all tests pass", with no check of its own, read as the stopped work's result — exit 0,
 * `responded`, no word that the stopped task changed files nobody checked. Found in session 8.
 */
describe("a follow-up after a task stopped mid-work (built binary)", { timeout: 300_000 }, () => {
  it.each(["continue", "mach weiter, bitte"])(
    "%s after SIGINT says the stopped task's changes were never checked",
    async (followUp) => {
      const cwd = brokenProject();
      const fake = await server({
        replies: [
          { toolCalls: [{ name: "write_file", input: { path: "feature.txt", content: "feature\n" } }] },
          { hang: true, text: ["All tests ", "pass"] },
        ],
      });
      const { home, run } = startTask("add the feature", cwd, fake.url);
      await until(() => fake.chatRequests().length >= 2, "the second model request");
      run.child.kill("SIGINT");
      await run.exited;
      const stopped = JSON.parse(run.stdout());
      expect(stopped).toMatchObject({ outcome: "cancelled" });
      expect(stopped.filesChanged).toEqual([{ path: "feature.txt", added: 1, removed: 0 }]);

      fake.push(...claims(1));
      const after = await runCli(["run", followUp, "--session", stopped.sessionId, "--json"], {
        home,
        cwd,
        env: providerEnv(fake.url),
      });
      const report = JSON.parse(after.stdout);
      expect(report.taskId).not.toBe(stopped.taskId);
      expect(report.outcome).toBe("responded");
      expect(report.reason).toContain(`the earlier task ${stopped.taskId} in this session was cancelled`);
      expect(report.reason).toContain("no check verified");
    },
  );

  it("a stopped task whose change a passing check followed needs no note", async () => {
    const cwd = gitProject({ "package.json": JSON.stringify({ name: "p", scripts: { test: "exit 0" } }) });
    const fake = await server({
      replies: [
        { toolCalls: [{ name: "write_file", input: { path: "feature.txt", content: "feature\n" } }] },
        { toolCalls: [{ name: "run_command", input: { command: "npm test" } }] },
        { hang: true, text: ["All tests ", "pass"] },
      ],
    });
    const { home, run } = startTask("add the feature", cwd, fake.url);
    await until(() => fake.chatRequests().length >= 3, "the third model request");
    run.child.kill("SIGINT");
    await run.exited;
    const stopped = JSON.parse(run.stdout());
    expect(stopped.verification).toEqual([{ command: "npm test", exitCode: 0 }]);
    fake.push({ text: "It is done." });
    const after = await runCli(["run", "continue", "--session", stopped.sessionId, "--json"], {
      home,
      cwd,
      env: providerEnv(fake.url),
    });
    expect(JSON.parse(after.stdout)).toMatchObject({ outcome: "responded" });
    expect(JSON.parse(after.stdout).reason).toBeUndefined();
  });
});

/**
 * The change picture is git's: a file the task hides with .gitignore is in no diff, so a runner config
 * created and ignored in the same breath changed the judge where nothing looked. GNU make reads
 * GNUmakefile before Makefile: `make test` then ran the task's target. Found in session 8: completed.
 */
describe("a check definition hidden from git by .gitignore (built binary)", { timeout: 300_000 }, () => {
  it("a git-ignored GNUmakefile shadowing the Makefile pauses for the user, never completes", async () => {
    const cwd = gitProject({
      Makefile: "test:\n\t@echo 'check: the feature is broken'; exit 1\n",
      "main.c": "int main(void) { return 0; }\n",
    });
    const fake = await server({
      replies: [
        {
          toolCalls: [
            { name: "write_file", input: { path: "main.c", content: "int main(void) { return 1; }\n" } },
          ],
        },
        {
          toolCalls: [
            { name: "write_file", input: { path: ".gitignore", content: "GNUmakefile\n" } },
            { name: "write_file", input: { path: "GNUmakefile", content: "test:\n\t@echo ok\n" } },
          ],
        },
        ...claims(4),
      ],
    });
    const { report } = await runTask("fix main.c so the tests pass", cwd, fake.url);
    expect(report.toolErrors).toEqual([]);
    expect(report.outcome).toBe("paused");
    expect(report.checksChanged).toContainEqual({
      path: "GNUmakefile",
      change: expect.stringContaining("created"),
    });
  });
});

/**
 * An exit 0 is a pass only when the output agrees, and only the JavaScript, Python, Go and Rust
 * runners' summaries were read: an RSpec or Maven run behind `|| true` that counted failures, or
 * that found no examples at all, completed the task. Found in session 8.
 */
describe("other runners' summaries beside an exit 0 (built binary)", { timeout: 300_000 }, () => {
  it.each([
    ["no examples", "0 examples, 0 failures", "paused", "ran no tests"],
    ["failures", "Tests run: 7, Failures: 2, Errors: 0, Skipped: 0", "failed", "reports failures"],
  ])("a check printing %s with exit 0 never completes", async (_what, summary, outcome, words) => {
    const cwd = gitProject({ Makefile: `test:\n\t@echo '${summary}'\n`, "notes.txt": "a\n" });
    const fake = await server({
      replies: [
        { toolCalls: [{ name: "write_file", input: { path: "notes.txt", content: "b\n" } }] },
        ...claims(4),
      ],
    });
    const { report } = await runTask("update the notes", cwd, fake.url);
    expect(report.outcome).toBe(outcome);
    expect(report.verification.at(-1)).toMatchObject({ command: "make test", exitCode: 0 });
    expect(report.reason).toContain(
      words.replace("reports failures", "exited 0 but its output reports failures"),
    );
  });
});

/**
 * The provider fails on the last, summarizing step. "failed" with only the provider's error read as
 * "nothing was done" after verified work, and said nothing either way after unverified changes.
 */
describe("the provider fails after the work (built binary)", { timeout: 300_000 }, () => {
  const down = Array.from({ length: 4 }, () => ({ error: { status: 500, message: "upstream exploded" } }));

  it("after a passing check: failed, and the reason says the changes were checked", async () => {
    const cwd = gitProject({ "package.json": JSON.stringify({ name: "p", scripts: { test: "exit 0" } }) });
    const fake = await server({
      replies: [
        { toolCalls: [{ name: "write_file", input: { path: "feature.txt", content: "feature\n" } }] },
        { toolCalls: [{ name: "run_command", input: { command: "npm test" } }] },
        ...down,
      ],
    });
    const { report } = await runTask("add the feature", cwd, fake.url);
    expect(report).toMatchObject({ outcome: "failed", endCause: "interrupted" });
    expect(report.verification).toEqual([{ command: "npm test", exitCode: 0 }]);
    expect(report.reason).toContain("upstream exploded");
    expect(report.reason).toContain(
      "`npm test` exited 0 after the last change; only the model's final answer is missing",
    );
  });

  it("after a change no check followed: failed, and the reason says the changes are unverified", async () => {
    const cwd = brokenProject();
    const fake = await server({
      replies: [
        { toolCalls: [{ name: "write_file", input: { path: "feature.txt", content: "feature\n" } }] },
        ...down,
      ],
    });
    const { report } = await runTask("add the feature", cwd, fake.url);
    expect(report).toMatchObject({ outcome: "failed", endCause: "interrupted" });
    expect(report.reason).toContain("no check ran after the last change, so they are unverified");
  });
});

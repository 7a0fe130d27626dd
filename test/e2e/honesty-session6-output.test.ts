import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useFakeServers } from "../helpers/fake-servers.js";
import { gitProject } from "../helpers/git-project.js";
import { runTask } from "../helpers/task-runs.js";

const server = useFakeServers();
const claims = (n: number) => Array.from({ length: n }, () => ({ text: "Done, all tests pass." }));

/**
 * A small runner: every checks/*.sh is a test; it prints a TAP-style count (`# tests N`) and says so
 * when it found none, exiting 0 then (as `--passWithNoTests` does). `wrapper` is appended to the
 * script (`|| true` swallows a failure, as some projects' scripts do).
 */
function runnerProject(wrapper = ""): string {
  const cwd = gitProject({
    "package.json": JSON.stringify({ name: "p", scripts: { test: `sh run.sh${wrapper}` } }),
    "run.sh":
      'n=0; failed=0\nfor f in checks/*.sh; do [ -f "$f" ] || continue; n=$((n+1)); sh "$f" || failed=$((failed+1)); done\n' +
      'if [ "$n" -eq 0 ]; then echo "No test files found, exiting with code 0"; fi\n' +
      'echo "# tests $n"; echo "# pass $((n-failed))"; echo "# fail $failed"\n[ "$failed" -eq 0 ]\n',
    "state.txt": "good\n",
  });
  mkdirSync(join(cwd, "checks"));
  writeFileSync(join(cwd, "checks", "state.sh"), "grep -q good state.txt\n");
  return cwd;
}

describe("an exit 0 that is no pass (built binary, loopback model)", { timeout: 300_000 }, () => {
  it("the task deletes the only test and the runner passes with no tests: paused, never completed", async () => {
    const cwd = runnerProject();
    // checks/ is no usual test folder: deleting its test is not caught as a change to the checks.
    const fake = await server({
      replies: [
        { toolCalls: [{ name: "write_file", input: { path: "state.txt", content: "bad\n" } }] },
        { toolCalls: [{ name: "run_command", input: { command: "rm checks/state.sh" } }] },
        ...claims(3),
      ],
    });
    const { result, report } = await runTask("change the state", cwd, fake.url);
    expect(report.outcome).toBe("paused");
    expect(result.code).toBe(3);
    expect(report.reason).toContain("the verification `npm test` exited 0 but ran no tests");
    expect(report.verification.at(-1)).toEqual({ command: "npm test", exitCode: 0, outputSays: "no tests" });
  });

  it("a check whose script swallows the failure (`|| true`) prints '# fail 1': failed after the fix rounds, never completed", async () => {
    const cwd = runnerProject(" || true");
    const fake = await server({
      replies: [
        { toolCalls: [{ name: "write_file", input: { path: "state.txt", content: "bad\n" } }] },
        ...claims(3),
      ],
    });
    const { result, report } = await runTask("change the state", cwd, fake.url);
    expect(report.outcome).toBe("failed");
    expect(result.code).toBe(1);
    expect(report.reason).toContain("`npm test` exited 0 but its output reports failures");
    expect(report.verification.at(-1)).toEqual({ command: "npm test", exitCode: 0, outputSays: "failures" });
  });

  it("the same runner with its test passing: completed (the summary counts a test that ran)", async () => {
    const cwd = runnerProject();
    const fake = await server({
      replies: [
        { toolCalls: [{ name: "write_file", input: { path: "notes.txt", content: "n\n" } }] },
        ...claims(1),
      ],
    });
    const { report } = await runTask("write notes", cwd, fake.url);
    expect(report.outcome).toBe("completed");
    expect(report.verification).toEqual([{ command: "npm test", exitCode: 0 }]);
  });
});

import { describe, expect, it } from "vitest";
import { useFakeServers } from "../helpers/fake-servers.js";
import { gitProject } from "../helpers/git-project.js";
import { runTask } from "../helpers/task-runs.js";

const server = useFakeServers();
const failingSuite = { "package.json": JSON.stringify({ name: "p", scripts: { test: "exit 1" } }) };

describe("a check that never ran is no evidence (built binary, loopback model)", { timeout: 300_000 }, () => {
  it("the model's check is refused and it claims the tests pass: responded, with the refusal beside the claim", async () => {
    const cwd = gitProject(failingSuite);
    const fake = await server({
      replies: [
        { toolCalls: [{ name: "run_command", input: { command: "npm test" } }] },
        { text: "All tests pass." },
      ],
    });
    const { report } = await runTask("check the tests", cwd, fake.url, { yes: false });
    expect(report.outcome).toBe("responded");
    expect(report.verification).toEqual([]);
    expect(report.reason).toBe(
      "nothing was changed; the verification `npm test` was refused and never ran, so nothing the answer says about it is verified",
    );
  });

  it("a sub-agent whose check was refused: delegate_task fails, and the parent's 'verified' answer carries why", async () => {
    const cwd = gitProject(failingSuite);
    const fake = await server({
      replies: [
        { toolCalls: [{ name: "delegate_task", input: { task: "run the tests and report" } }] },
        // The child: its check is refused (a sub-agent never inherits --yes, and `run` cannot ask).
        { toolCalls: [{ name: "run_command", input: { command: "npm test" } }] },
        { text: "All tests pass." },
        // The parent repeats the child's claim.
        { text: "Verified by a sub-agent: all tests pass." },
      ],
    });
    const { result, report } = await runTask("have a helper check the tests", cwd, fake.url);
    expect(result.code, result.stderr).toBe(0);
    expect(report.outcome).toBe("responded");
    expect(report.toolErrors).toContainEqual(
      expect.objectContaining({
        tool: "delegate_task",
        error: expect.stringContaining(
          "sub-agent responded, but nothing was changed; the verification `npm test` was refused",
        ),
      }),
    );
    expect(report.reason).toMatch(/^nothing was changed; a sub-agent's check did not pass or never ran/);
  });

  it("a write that failed and an answer that says it was made: responded, with the failure beside the claim", async () => {
    const cwd = gitProject(failingSuite);
    const fake = await server({
      replies: [
        { toolCalls: [{ name: "write_file", input: { path: "/etc/mercury-honesty.txt", content: "x\n" } }] },
        { text: "Done, I wrote the file." },
      ],
    });
    const { report } = await runTask("write the file", cwd, fake.url);
    expect(report.outcome).toBe("responded");
    expect(report.filesChanged).toEqual([]);
    expect(report.reason).toMatch(
      /^nothing was changed; write_file failed \(.+\), so nothing the answer says about it is verified$/,
    );
  });

  it("a write that failed, then a passing check of the unchanged code: the failure stays beside the claim", async () => {
    const cwd = gitProject({ "package.json": JSON.stringify({ name: "p", scripts: { test: "exit 0" } }) });
    const fake = await server({
      replies: [
        { toolCalls: [{ name: "write_file", input: { path: "/etc/mercury-honesty.txt", content: "x\n" } }] },
        // The check passes because nothing changed; it says nothing about the write.
        { toolCalls: [{ name: "run_command", input: { command: "npm test" } }] },
        { text: "Done, I wrote the file and the tests pass." },
      ],
    });
    const { report } = await runTask("write the file", cwd, fake.url);
    expect(report.outcome).toBe("responded");
    expect(report.filesChanged).toEqual([]);
    expect(report.verification).toEqual([{ command: "npm test", exitCode: 0 }]);
    expect(report.reason).toMatch(
      /^nothing was changed; write_file failed \(.+\), so nothing the answer says about it is verified$/,
    );
  });

  it("a command that exits 1 as a read's answer (grep found nothing), then a passing check: no note", async () => {
    const cwd = gitProject({ "package.json": JSON.stringify({ name: "p", scripts: { test: "exit 0" } }) });
    const fake = await server({
      replies: [
        { toolCalls: [{ name: "run_command", input: { command: "grep -rq zzz-not-there ." } }] },
        { toolCalls: [{ name: "run_command", input: { command: "npm test" } }] },
        { text: "Nothing uses zzz-not-there, and the tests pass." },
      ],
    });
    const { report } = await runTask("is zzz-not-there used?", cwd, fake.url);
    expect(report.outcome).toBe("responded");
    expect(report.verification).toEqual([{ command: "npm test", exitCode: 0 }]);
    expect(report.reason).toBeUndefined();
  });
});

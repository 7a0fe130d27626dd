import { describe, expect, it } from "vitest";
import { fastRetryConfig, makeHome, providerEnv, runCli } from "../helpers/cli.js";
import { useFakeServers } from "../helpers/fake-servers.js";
import { gitProject } from "../helpers/git-project.js";
import { runTask } from "../helpers/task-runs.js";

const server = useFakeServers();
const passingSuite = { "package.json": JSON.stringify({ name: "p", scripts: { test: "exit 0" } }) };
// fastRetryConfig: three attempts per step, so three errors end the child's step.
const providerDown = Array.from({ length: 3 }, () => ({
  error: { status: 500, message: "child provider exploded" },
}));

describe("a sub-agent that did not finish is no success of the parent's (built binary, loopback model)", {
  timeout: 300_000,
}, () => {
  it("the child's provider fails and the parent says the helper did it: the answer carries the failure", async () => {
    const cwd = gitProject(passingSuite);
    const fake = await server({
      replies: [
        { toolCalls: [{ name: "delegate_task", input: { task: "write notes.txt with the summary" } }] },
        // The child: every attempt of its first step fails.
        ...providerDown,
        // The parent reports the child's work as done.
        { text: "The helper wrote notes.txt with the summary. All done." },
      ],
    });
    const { result, report } = await runTask("have a helper write the notes", cwd, fake.url);
    expect(result.code, result.stderr).toBe(0);
    expect(report.outcome).toBe("responded");
    expect(report.filesChanged).toEqual([]);
    expect(report.toolErrors).toContainEqual(
      expect.objectContaining({ tool: "delegate_task", error: expect.stringContaining("sub-agent failed") }),
    );
    expect(report.reason).toMatch(/^nothing was changed; a sub-agent did not finish its work \(failed: /);
    expect(report.reason).toContain("child provider exploded");
  });

  it("a child that ran out of steps is paused, not done: the parent's claim carries it", async () => {
    const cwd = gitProject(passingSuite);
    const fake = await server({
      replies: [
        { toolCalls: [{ name: "delegate_task", input: { task: "look around, then write notes.txt" } }] },
        // The child lists the folder on every step until its budget (agent.maxSteps 2) runs out.
        { toolCalls: [{ name: "list_dir", input: { path: "." } }] },
        { toolCalls: [{ name: "list_dir", input: { path: "." } }] },
        { text: "The helper finished: notes.txt is written." },
      ],
    });
    const { home } = makeHome(`${fastRetryConfig}agent:\n  maxSteps: 2\n`);
    const result = await runCli(["run", "have a helper write the notes", "--json", "--yes"], {
      home,
      cwd,
      env: providerEnv(fake.url),
    });
    const report = JSON.parse(result.stdout);
    expect(report.toolErrors).toContainEqual(
      expect.objectContaining({ tool: "delegate_task", error: expect.stringContaining("sub-agent paused") }),
    );
    expect(report.outcome).not.toBe("completed");
    expect(report.reason).toMatch(/a sub-agent did not finish its work \(paused: /);
  });
});

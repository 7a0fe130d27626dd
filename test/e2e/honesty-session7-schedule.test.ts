import { describe, expect, it } from "vitest";
import { fastRetryConfig, makeHome, providerEnv, runCli } from "../helpers/cli.js";
import { useFakeServers } from "../helpers/fake-servers.js";
import { gitProject } from "../helpers/git-project.js";
import { query } from "../helpers/ledger.js";

const server = useFakeServers();
const claims = (n: number) => Array.from({ length: n }, () => ({ text: "Fixed. All tests pass." }));

describe("a scheduled job after a failed run (built binary, loopback model)", { timeout: 300_000 }, () => {
  it("a follow-up run that only claims the fix is not the job's success: it names the failed run", async () => {
    const cwd = gitProject({ "package.json": JSON.stringify({ name: "p", scripts: { test: "exit 1" } }) });
    const { home } = makeHome(fastRetryConfig);
    const fake = await server({
      replies: [
        { toolCalls: [{ name: "write_file", input: { path: "fix.txt", content: "fix\n" } }] },
        ...claims(3),
      ],
    });
    const env = providerEnv(fake.url);
    const cli = (args: string[]) => runCli(args, { home, cwd, env });
    const added = await cli([
      "schedule",
      "add",
      "every 60 minutes",
      "continue fixing the failing tests",
      "--workspace",
      cwd,
      "--deliver",
      "none",
      "--json",
    ]);
    expect(added.code, added.stderr).toBe(0);
    const jobId: string = JSON.parse(added.stdout).job.id;

    const first = await cli(["schedule", "run-now", jobId, "--json"]);
    const failed = JSON.parse(first.stdout).run;
    // Unattended, the run cannot finish the fix: it ends failed or paused, and says why.
    expect(["failed", "paused"]).toContain(failed.outcome);
    expect(failed.reason).toEqual(expect.any(String));
    expect(first.code).not.toBe(0);

    // The next run changes nothing and runs no check; it only says the tests pass.
    fake.push(...claims(1));
    const second = await cli(["schedule", "run-now", jobId, "--json"]);
    const followUp = JSON.parse(second.stdout).run;
    expect(followUp.outcome).toBe("responded");
    expect(followUp.reason).toBe(
      `nothing was changed; the job's previous run ${failed.id} (task ${failed.taskId}) is ${failed.outcome} (${failed.reason}) and this run ran no check of its work, so nothing the answer says about it is verified`,
    );
    expect(query(home, "SELECT reason FROM tasks WHERE id = ?", followUp.taskId)).toEqual({
      reason: followUp.reason,
    });
    // What the owner reads in the job's history carries it too.
    const history = await cli(["schedule", "history", jobId]);
    expect(history.stdout).toContain(`the job's previous run ${failed.id}`);
  });
});

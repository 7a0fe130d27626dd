import { describe, expect, it } from "vitest";
import { fastRetryConfig, makeHome, providerEnv, runCli } from "../helpers/cli.js";
import { useFakeServers } from "../helpers/fake-servers.js";

const server = useFakeServers();

describe("/schedule and /agents in chat (built binary)", () => {
  it("/schedule lists the owner's jobs, /schedule <words> goes to the agent, /agents reports sub-agents", async () => {
    const fake = await server({ replies: [{ text: "I would ask you before creating that job." }] });
    const { home, userHome, workspace } = makeHome(fastRetryConfig);
    const options = { home, userHome, cwd: workspace, env: providerEnv(fake.url) };
    const empty = await runCli(["chat"], { ...options, input: "/schedule\n/agents\n/agents stop nope\n" });
    expect(empty.stderr).toContain("No scheduled jobs.");
    expect(empty.stderr).toContain("No sub-agents have run in this session.");
    expect(empty.stderr).toContain("no running sub-agent nope");
    expect(fake.chatRequests()).toHaveLength(0);

    const added = await runCli(
      ["schedule", "add", "every 30 minutes", "check the build", "--name", "build-check"],
      options,
    );
    expect(added.code, added.stderr).toBe(0);
    // The due time in words too, not only as a UTC instant.
    expect(added.stdout).toMatch(
      /^Added job-\S+: every 30 minutes, next at \d{4}-\d\d-\d\dT\S+Z \(in (30 min|2\d min)\)\.$/m,
    );
    const list = await runCli(["schedule", "list"], options);
    expect(list.stdout).toMatch(/next \S+Z \(in \d+ min\) {2}build-check/);
    const listed = await runCli(["chat"], {
      ...options,
      input: "/schedule\n/schedule every monday at 9 water the plants\n",
    });
    expect(listed.stderr).toMatch(/job-\S+ {2}active {2}every 30 minutes {2}next in .* {2}build-check/);
    expect(JSON.stringify(fake.chatRequests()[0]?.body)).toContain(
      "Schedule this: every monday at 9 water the plants",
    );
  });
});

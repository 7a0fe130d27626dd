import { describe, expect, it } from "vitest";
import { daemonHome, waitFor } from "../daemon/daemon-helpers.js";
import { useDaemonFixture } from "../helpers/daemon-fixture.js";

const fixture = useDaemonFixture({ stopDaemon: true });

interface AgentsJson {
  agents: { id: string; parentTaskId: string; status: string; task: string }[];
}

// Real processes on a shared 2-core machine: the harness limit is generous; nothing asserts on time.
describe("mercury agents (daemon, loopback model)", { timeout: 120_000 }, () => {
  it("lists a running sub-agent and stops it; the parent gets the child's end as its tool result", async () => {
    fixture.current = daemonHome(fixture.server.url);
    expect((await fixture.current.cli(["start"])).code).toBe(0);
    fixture.server.push({
      toolCalls: [{ name: "delegate_task", input: { task: "count the files slowly" } }],
    });
    fixture.server.push({ hang: true, text: ["Counting"] });
    fixture.server.push({ text: "The sub-agent was stopped before it finished." });
    const client = await fixture.current.connect();
    const { taskId } = (await client.request({ type: "submit", text: "count files with a helper" })) as {
      taskId: string;
    };
    client.close();
    await waitFor(() => fixture.server.chatRequests().length >= 2, 15_000, "the child's model request");
    const listed = JSON.parse((await fixture.current.cli(["agents", "list", "--json"])).stdout) as AgentsJson;
    expect(listed.agents).toEqual([
      expect.objectContaining({
        id: `${taskId}/child-1`,
        parentTaskId: taskId,
        status: "running",
        task: "count the files slowly",
      }),
    ]);
    const stopped = await fixture.current.cli(["agents", "stop", `${taskId}/child-1`, "--json"]);
    expect(stopped.code, stopped.stderr).toBe(0);
    const daemon = fixture.current;
    const parentStatus = () =>
      daemon.query<{ status: string }>("SELECT status FROM tasks WHERE id = ?", taskId)[0]?.status;
    await waitFor(
      () => !["queued", "running"].includes(parentStatus() ?? "running"),
      15_000,
      "the parent to finish",
    );
    // A plain answer with no file change is "responded", never shown as completed.
    expect(parentStatus()).toBe("responded");
    const after = JSON.parse((await fixture.current.cli(["agents", "list", "--json"])).stdout) as AgentsJson;
    expect(after.agents[0]?.status).toBe("cancelled");
    // The parent's third request carries the child's end as a tool result.
    expect(JSON.stringify(fixture.server.chatRequests()[2]?.body)).toContain("sub-agent");
    const missing = await fixture.current.cli(["agents", "stop", "nope"]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("no running sub-agent");
  });
});

import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type DaemonHome, daemonHome, waitFor } from "../daemon/daemon-helpers.js";
import { type FakeOpenAIServer, startFakeOpenAIServer } from "../fakes/openai-server.js";

let server: FakeOpenAIServer;
let current: DaemonHome | null = null;

beforeEach(async () => {
  server = await startFakeOpenAIServer({ replies: [] });
});

afterEach(async () => {
  if (current) await current.cli(["stop"]);
  await current?.cleanup();
  current = null;
  await server.close();
});

interface AgentsJson {
  agents: { id: string; parentTaskId: string; status: string; task: string }[];
}

// Real processes on a shared 2-core machine: the harness limit is generous; nothing asserts on time.
describe("mercury agents (daemon, loopback model)", { timeout: 120_000 }, () => {
  it("lists a running sub-agent and stops it; the parent gets the child's end as its tool result", async () => {
    current = daemonHome(server.url);
    expect((await current.cli(["start"])).code).toBe(0);
    server.push({ toolCalls: [{ name: "delegate_task", input: { task: "count the files slowly" } }] });
    server.push({ hang: true, text: ["Counting"] });
    server.push({ text: "The sub-agent was stopped before it finished." });
    const client = await current.connect();
    const { taskId } = (await client.request({ type: "submit", text: "count files with a helper" })) as {
      taskId: string;
    };
    client.close();
    await waitFor(() => server.chatRequests().length >= 2, 15_000, "the child's model request");
    const listed = JSON.parse((await current.cli(["agents", "list", "--json"])).stdout) as AgentsJson;
    expect(listed.agents).toEqual([
      expect.objectContaining({
        id: `${taskId}/child-1`,
        parentTaskId: taskId,
        status: "running",
        task: "count the files slowly",
      }),
    ]);
    const stopped = await current.cli(["agents", "stop", `${taskId}/child-1`, "--json"]);
    expect(stopped.code, stopped.stderr).toBe(0);
    const daemon = current;
    const parentStatus = () =>
      daemon.query<{ status: string }>("SELECT status FROM tasks WHERE id = ?", taskId)[0]?.status;
    await waitFor(
      () => !["queued", "running"].includes(parentStatus() ?? "running"),
      15_000,
      "the parent to finish",
    );
    // A plain answer with no file change is "responded", never shown as completed.
    expect(parentStatus()).toBe("responded");
    const after = JSON.parse((await current.cli(["agents", "list", "--json"])).stdout) as AgentsJson;
    expect(after.agents[0]?.status).toBe("cancelled");
    // The parent's third request carries the child's end as a tool result.
    expect(JSON.stringify(server.chatRequests()[2]?.body)).toContain("sub-agent");
    const missing = await current.cli(["agents", "stop", "nope"]);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain("no running sub-agent");
  });
});

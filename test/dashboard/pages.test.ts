import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { waitFor } from "../daemon/daemon-helpers.js";
import { type FakeOpenAIServer, startFakeOpenAIServer } from "../fakes/openai-server.js";
import { gitProject } from "../helpers/git-project.js";
import { type Harness, type LoggedIn, logIn, send, startHarness } from "./dashboard-harness.js";

let model: FakeOpenAIServer;
let harness: Harness;
let session: LoggedIn;

beforeEach(async () => {
  model = await startFakeOpenAIServer({ replies: [] });
  harness = await startHarness(model);
  session = await logIn(harness);
});

afterEach(async () => {
  await harness.close();
  await model.close();
});

const get = (path: string) => send(harness.info.port, "GET", path, { cookie: session.cookie });
const post = (path: string, fields: Record<string, string> = {}) =>
  send(
    harness.info.port,
    "POST",
    path,
    { cookie: session.cookie, origin: harness.origin, "content-type": "application/x-www-form-urlencoded" },
    new URLSearchParams({ csrf: session.csrf, ...fields }).toString(),
  );

function memoryService() {
  const memory = harness.app.memory;
  if (!memory) throw new Error("memory is off");
  return memory;
}

describe("dashboard pages over the existing services", () => {
  it("edits a memory (a new version with the user's wording) and shows its history and evidence", async () => {
    const memory = memoryService();
    await memory.remember({
      userKey: "owner",
      text: "I live in Lyon",
      kind: "fact",
      importance: "normal",
      evidence: "user-stated",
    });
    const id = memory.list({ userKey: "owner" })[0]?.id ?? 0;
    const edited = await post(`/memory/${id}/edit?user=owner`, { text: "I live in Grenoble" });
    expect(edited.status).toBe(303);
    expect(memory.show(id, "owner").text).toBe("I live in Grenoble");
    const page = await get(`/memory/${id}`);
    expect(page.body).toContain("I live in Grenoble");
    expect(page.body).toMatch(/<td>edited<\/td>/);
    expect(page.body).toContain("I live in Lyon");
    expect(page.body).toContain("Confidence");
  });

  it("lists by tier and as of a date, and exports what the CLI exports", async () => {
    const memory = memoryService();
    await memory.remember({
      userKey: "owner",
      text: "I drink oolong tea",
      kind: "preference",
      importance: "normal",
      evidence: "user-stated",
    });
    expect((await get("/memory?tier=active")).body).toContain("I drink oolong tea");
    expect((await get("/memory?tier=archived")).body).not.toContain("I drink oolong tea");
    expect((await get("/memory?asOf=2000-01-01")).body).not.toContain("I drink oolong tea");
    expect((await get("/memory?asOf=not-a-date")).body).toContain("as of must be a date");
    const exported = await get("/memory-export?user=owner&format=jsonl");
    expect(exported.headers["content-disposition"]).toContain("attachment");
    expect(exported.body).toContain('"mercury-memory-export"');
    expect(exported.body).toContain("I drink oolong tea");
  });

  it("resolves a conflict by keeping one memory; the other is superseded, not deleted", async () => {
    const memory = memoryService();
    await memory.remember({
      userKey: "owner",
      text: "My car is red",
      kind: "fact",
      importance: "normal",
      evidence: "user-stated",
    });
    const first = memory.list({ userKey: "owner" })[0]?.id ?? 0;
    // The model judge (through the loopback server) calls the two statements a contradiction.
    model.push({
      text: JSON.stringify({ judgements: [{ id: first, verdict: "contradiction", reason: "two colours" }] }),
    });
    await memory.remember({
      userKey: "owner",
      text: "My car is blue",
      kind: "fact",
      importance: "normal",
      evidence: "user-stated",
    });
    const [conflict] = memory.conflicts("owner");
    if (!conflict)
      throw new Error(`no conflict was recorded: ${JSON.stringify(memory.list({ userKey: "owner" }))}`);
    const page = await get("/memory-conflicts");
    expect(page.body).toContain(`Keep #${conflict.b.id}`);
    expect(page.body).toContain("My car is red");
    const resolved = await post(`/memory/${conflict.a.id}/resolve?user=owner`, {
      keep: String(conflict.b.id),
    });
    expect(resolved.status).toBe(303);
    expect(memory.conflicts("owner")).toEqual([]);
    expect(memory.show(conflict.a.id, "owner").supersededBy).toBe(conflict.b.id);
  });

  it("answers an approval through the shared broker: the gateway's task goes on and the request is gone", async () => {
    const project = gitProject({ "README.md": "hello\n" });
    model.push(
      { toolCalls: [{ name: "run_command", input: { command: "rm -rf build" } }] },
      { text: "Cleaned." },
    );
    const { taskId } = await harness.gateway.submit(
      { userKey: "owner", channel: "cli", text: "clean" },
      { cwd: project },
    );
    await waitFor(() => harness.app.approvals.pendingFor("owner").length > 0, 15_000, "the approval request");
    const [pending] = harness.app.approvals.pendingFor("owner");
    if (!pending) throw new Error("no approval was asked");
    expect((await get("/approvals")).body).toContain("rm -rf build");
    expect((await post(`/approvals/${pending.id}`, { decision: "maybe" })).headers.location).toContain(
      "choose",
    );
    const answered = await post(`/approvals/${pending.id}`, { decision: "once" });
    expect(answered.headers.location).toContain("Answered");
    await harness.gateway.idle();
    expect(harness.ledger.require(taskId).finalAnswer).toBe("Cleaned.");
    expect(harness.events.some((event) => event.type === "approval-resolved")).toBe(true);
    expect((await get("/approvals")).body).not.toContain("rm -rf build");
    // Answering again is refused with the broker's reason, not a second decision.
    expect(
      decodeURIComponent(
        String((await post(`/approvals/${pending.id}`, { decision: "deny" })).headers.location),
      ),
    ).toContain("already approved");
  });

  it("shows a finished task's transcript, verification and diff of the files it changed", async () => {
    const project = gitProject({ "notes.txt": "one\n" });
    model.push(
      {
        toolCalls: [
          { name: "write_file", input: { path: "notes.txt", content: "one\ntwo <script>x</script>\n" } },
        ],
      },
      { text: "Added a line." },
    );
    const { taskId } = await harness.gateway.submit(
      { userKey: "owner", channel: "cli", text: "add a line" },
      { cwd: project },
    );
    await harness.gateway.idle();
    const page = await get(`/tasks/${taskId}`);
    expect(page.status).toBe(200);
    expect(page.body).toContain("write_file");
    expect(page.body).toContain("notes.txt");
    expect(page.body).toMatch(/<pre class="diff">[\s\S]*\+two &lt;script&gt;x&lt;\/script&gt;/);
  });

  it("chat submits through the gateway on its own channel and the answer arrives on the event stream", async () => {
    model.push({ text: "Hi from the model." });
    const response = await send(
      harness.info.port,
      "POST",
      "/chat",
      {
        cookie: session.cookie,
        origin: harness.origin,
        "content-type": "application/json",
        "x-csrf-token": session.csrf,
      },
      JSON.stringify({ text: "hello" }),
    );
    expect(response.status).toBe(200);
    const { taskId } = JSON.parse(response.body) as { taskId: string };
    await harness.gateway.idle();
    expect(harness.ledger.require(taskId)).toMatchObject({
      channel: "dashboard",
      finalAnswer: "Hi from the model.",
    });
    const bad = await send(
      harness.info.port,
      "POST",
      "/chat",
      {
        cookie: session.cookie,
        origin: harness.origin,
        "content-type": "application/json",
        "x-csrf-token": session.csrf,
      },
      "{not json",
    );
    expect(bad.status).toBe(400);
  });
});

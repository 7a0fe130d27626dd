import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { AgentEvent } from "../../src/agent/events.js";
import { WorkLedger } from "../../src/agent/ledger.js";
import { DeliveryLedger } from "../../src/agent/ledger-deliveries.js";
import { createApp, type MercuryApp } from "../../src/app/container.js";
import { DaemonGateway, isContinueRequest, maxCrashResumes } from "../../src/channels/gateway.js";
import type { ScriptedReply } from "../fakes/script.js";
import { ScriptedModel } from "../fakes/scripted-model.js";
import { waitFor } from "./daemon-helpers.js";

let apps: MercuryApp[] = [];

afterEach(() => {
  for (const app of apps) app.close();
  apps = [];
});

function setup(replies: ScriptedReply[] = []) {
  const home = mkdtempSync(join(tmpdir(), "mercury-gateway-"));
  writeFileSync(join(home, "config.yaml"), "memory:\n  enabled: false\n");
  const model = new ScriptedModel(replies);
  const app = createApp({
    env: {
      MERCURY_HOME: home,
      HOME: home,
      MERCURY_PROVIDER: "openai-compatible",
      MERCURY_BASE_URL: "http://127.0.0.1:9/v1",
      MERCURY_MODEL: "scripted",
    },
    databasePath: ":memory:",
    modelFactory: () => model,
    tools: [],
  });
  apps.push(app);
  const ledger = new WorkLedger(app.database, app.clock);
  const deliveries = new DeliveryLedger(app.database, app.clock);
  const gateway = new DaemonGateway({ app, ledger, deliveries, defaultCwd: home });
  const events: AgentEvent[] = [];
  gateway.subscribe((event) => events.push(event));
  return { app, model, ledger, gateway, events };
}

function lastUserText(model: ScriptedModel): string {
  const prompt = model.requests[model.requests.length - 1]?.prompt ?? [];
  const users = prompt.filter((message) => message.role === "user");
  return JSON.stringify(users[users.length - 1]?.content);
}

describe("DaemonGateway", () => {
  it("records a submitted task in the ledger under the id its events carry", async () => {
    const { gateway, ledger, events } = setup([{ text: "Hello from the daemon." }]);
    const finished: string[] = [];
    gateway.onTaskFinished((task) => finished.push(`${task.id}:${task.status}`));
    const { taskId } = await gateway.submit({ userKey: "owner", channel: "cli", text: "hi" });
    await gateway.idle();
    expect(ledger.require(taskId)).toMatchObject({
      status: "responded",
      outcome: "responded",
      finalAnswer: "Hello from the daemon.",
      resumes: 0,
    });
    expect(finished).toEqual([`${taskId}:responded`]);
    expect(events.filter((event) => event.type === "task-end").map((event) => event.taskId)).toEqual([
      taskId,
    ]);
  });

  it("'continue' resumes the user's paused task on its session; other text starts a new task", async () => {
    const { app, gateway, ledger, model } = setup([
      { text: "first" },
      { text: "carried on" },
      { text: "new one" },
    ]);
    const { taskId, sessionId } = await gateway.submit({
      userKey: "owner",
      channel: "cli",
      text: "long job",
    });
    await gateway.idle();
    // As if the loop had paused it (step budget exhausted): the ledger holds the blocker.
    app.database
      .prepare("UPDATE tasks SET status = 'paused', reason = 'step budget exhausted' WHERE id = ?")
      .run(taskId);

    const resumed = await gateway.submit({ userKey: "owner", channel: "cli", text: "Continue" });
    expect(resumed).toEqual({ taskId, sessionId });
    await gateway.idle();
    expect(ledger.require(taskId)).toMatchObject({
      status: "responded",
      continuations: 1,
      finalAnswer: "carried on",
    });
    expect(lastUserText(model)).toContain("Continue");

    const fresh = await gateway.submit({ userKey: "owner", channel: "cli", text: "something else" });
    expect(fresh.taskId).not.toBe(taskId);
    await gateway.idle();
    expect(isContinueRequest("  keep going! ")).toBe(true);
    expect(isContinueRequest("continue with the docs")).toBe(false);
    expect(isContinueRequest("Please try again.")).toBe(true);
    expect(isContinueRequest("ok, carry on")).toBe(true);
    expect(isContinueRequest("try again with the docs")).toBe(false);
  });

  it("a message for a busy session steers the running task instead of starting another", async () => {
    const { gateway, ledger } = setup([{ hang: true }]);
    const first = await gateway.submit({ userKey: "owner", channel: "cli", text: "work" });
    await waitFor(() => gateway.runningTasks().length === 1, 2000, "the task to run");
    const second = await gateway.submit({ userKey: "owner", channel: "cli", text: "also do this" });
    expect(second.taskId).toBe(first.taskId);
    expect(ledger.list()).toHaveLength(1);
    expect(await gateway.stop("owner")).toBe(true);
  });

  it("/stop cancels the running task in the ledger; it is not listed for resumption", async () => {
    const { gateway, ledger } = setup([{ hang: true }]);
    const { taskId } = await gateway.submit({ userKey: "owner", channel: "cli", text: "work" });
    await waitFor(() => gateway.runningTasks().length === 1, 2000, "the task to run");
    expect(await gateway.stop("telegram:9")).toBe(false);
    expect(await gateway.stop("owner")).toBe(true);
    expect(ledger.require(taskId)).toMatchObject({ status: "cancelled", reason: "stopped by owner" });
    expect(ledger.interrupted()).toEqual([]);
    expect(gateway.resumeInterrupted()).toEqual([]);
  });

  it("resumeInterrupted runs a crashed task again on its session with the resume instruction", async () => {
    const { app, gateway, ledger, model } = setup([{ text: "picked it up again" }]);
    const sessionId = app.agent.transcriptStore.createSession("owner", "cli");
    app.agent.transcriptStore.append(sessionId, "t-crashed", [
      { role: "user", content: "migrate the database" },
    ]);
    ledger.create({
      id: "t-crashed",
      sessionId,
      userKey: "owner",
      channel: "cli",
      input: "migrate the database",
      cwd: "/tmp",
    });
    ledger.markRunning("t-crashed");
    const resumed = gateway.resumeInterrupted();
    expect(resumed.map((task) => task.id)).toEqual(["t-crashed"]);
    await gateway.idle();
    expect(ledger.require("t-crashed")).toMatchObject({
      status: "responded",
      resumes: 1,
      finalAnswer: "picked it up again",
    });
    expect(lastUserText(model)).toContain("[resume after restart]");
    // The interrupted run's transcript is in the context of the resumed one.
    expect(JSON.stringify(model.requests[0]?.prompt)).toContain("migrate the database");
  });

  it("shutdown cancels active work first and refuses new submissions with a clear message", async () => {
    const { gateway, ledger } = setup([{ hang: true }]);
    const { taskId } = await gateway.submit({ userKey: "owner", channel: "cli", text: "work" });
    await waitFor(() => gateway.runningTasks().length === 1, 2000, "the task to run");
    const result = await gateway.shutdown("cancelled: SIGTERM", 5000);
    expect(result).toEqual({ cancelled: [taskId], timedOut: false });
    expect(ledger.require(taskId).status).toBe("cancelled");
    await expect(gateway.submit({ userKey: "owner", channel: "cli", text: "more" })).rejects.toThrow(
      /shutting down/,
    );
  });

  it("refuses another user's session and an unknown question", async () => {
    const { app, gateway } = setup([]);
    const theirs = app.agent.transcriptStore.createSession("telegram:7", "telegram");
    await expect(
      gateway.submit({ userKey: "owner", channel: "cli", text: "hi" }, { sessionId: theirs }),
    ).rejects.toThrow(/belongs to another user/);
    await expect(gateway.answerQuestion("q-none", "yes", "owner")).rejects.toThrow(/No open question q-none/);
  });

  it("status reports the provider, model, running task and budget", async () => {
    const { gateway } = setup([{ hang: true }]);
    const { taskId, sessionId } = await gateway.submit({ userKey: "owner", channel: "cli", text: "work" });
    await waitFor(() => gateway.runningTasks().length === 1, 2000, "the task to run");
    const status = await gateway.status("owner");
    expect(status).toMatchObject({
      provider: expect.any(String),
      model: "scripted",
      sessionId,
      runningTaskId: taskId,
    });
    expect(status.budget.tokensToday).toBe(0);
    await gateway.stop("owner");
  });

  it("a task that keeps crashing the process is paused for the person instead of resumed forever", async () => {
    const { app, gateway, ledger } = setup([]);
    const sessionId = app.agent.transcriptStore.createSession("owner", "cli");
    ledger.create({ id: "t-loop", sessionId, userKey: "owner", channel: "cli", input: "risky", cwd: "/tmp" });
    ledger.markRunning("t-loop");
    for (let crash = 0; crash < maxCrashResumes; crash += 1) ledger.markRunning("t-loop", "resume");
    expect(gateway.resumeInterrupted()).toEqual([]);
    expect(ledger.require("t-loop")).toMatchObject({
      status: "paused",
      reason: expect.stringContaining('say "continue"'),
    });
  });
});

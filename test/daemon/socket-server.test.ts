import { mkdtempSync, statSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { WorkLedger } from "../../src/agent/ledger.js";
import { DeliveryLedger } from "../../src/agent/ledger-deliveries.js";
import { createApp, type MercuryApp } from "../../src/app/container.js";
import { createLogger } from "../../src/app/logger.js";
import { DaemonGateway } from "../../src/channels/gateway.js";
import { Redactor } from "../../src/config/secrets.js";
import { DaemonClient } from "../../src/daemon/client.js";
import { SocketServer } from "../../src/daemon/socket-server.js";
import type { ScriptedReply } from "../fakes/script.js";
import { ScriptedModel } from "../fakes/scripted-model.js";
import { subscribe, waitFor } from "./daemon-helpers.js";

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function setup(replies: ScriptedReply[] = [], prepare?: (socketPath: string) => void) {
  const home = mkdtempSync(join(tmpdir(), "mercury-sock-"));
  writeFileSync(join(home, "config.yaml"), "memory:\n  enabled: false\n");
  const app: MercuryApp = createApp({
    env: {
      MERCURY_HOME: home,
      HOME: home,
      MERCURY_PROVIDER: "openai-compatible",
      MERCURY_BASE_URL: "http://127.0.0.1:9/v1",
      MERCURY_MODEL: "scripted",
    },
    databasePath: ":memory:",
    modelFactory: () => new ScriptedModel(replies),
    tools: [],
  });
  const ledger = new WorkLedger(app.database, app.clock);
  const deliveries = new DeliveryLedger(app.database, app.clock);
  const gateway = new DaemonGateway({ app, ledger, deliveries, defaultCwd: home });
  const path = join(home, "mercury.sock");
  prepare?.(path);
  const server = new SocketServer({
    path,
    gateway,
    ledger,
    deliveries,
    logger: createLogger(join(home, "logs"), "info", new Redactor({}), "daemon.log"),
    status: () => ({ ok: true }),
    pendingApprovals: () => [],
  });
  await server.listen();
  cleanups.push(() => app.close());
  cleanups.push(() => server.close());
  return { app, gateway, ledger, deliveries, server, path };
}

function rawExchange(path: string, payload: string, expectLines: number): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const socket = connect(path);
    let buffer = "";
    const lines = () => buffer.split("\n").filter((line) => line !== "");
    socket.setEncoding("utf8");
    socket.on("data", (chunk: string) => {
      buffer += chunk;
      if (lines().length >= expectLines) {
        socket.destroy();
        resolve(lines());
      }
    });
    socket.on("close", () => resolve(lines()));
    socket.on("error", reject);
    socket.write(payload);
  });
}

describe("daemon socket", () => {
  it("is created 0600, replacing a socket file a crashed daemon left", async () => {
    const { path } = await setup([], (socketPath) => writeFileSync(socketPath, "stale"));
    expect(statSync(path).isSocket()).toBe(true);
    expect(statSync(path).mode & 0o777).toBe(0o600);
  });

  it("answers malformed input with the reason and keeps the connection usable", async () => {
    const { path } = await setup();
    const replies = await rawExchange(
      path,
      'not json\n{"type":"submit","id":"1"}\n{"type":"launch-missiles","id":"2"}\n{"type":"status","id":"3"}\n',
      4,
    );
    const parsed = replies.map(
      (line) => JSON.parse(line) as { id: string; ok: boolean; error?: string; result?: unknown },
    );
    expect(parsed[0]).toMatchObject({ id: "", ok: false, error: expect.stringContaining("not JSON") });
    expect(parsed[1]).toMatchObject({ id: "1", ok: false, error: expect.stringContaining("bad request") });
    expect(parsed[2]).toMatchObject({ id: "2", ok: false, error: expect.stringContaining("bad request") });
    expect(parsed[3]).toMatchObject({ id: "3", ok: true, result: { ok: true } });
  });

  it("closes a connection that sends an endless line instead of buffering it", async () => {
    const { path } = await setup();
    const replies = await rawExchange(path, "x".repeat(1024 * 1024 + 10), 1);
    expect(JSON.parse(replies[0] ?? "{}")).toMatchObject({
      ok: false,
      error: expect.stringContaining("exceeded"),
    });
  });

  it("streams only the owner's events: a Telegram member's task stays private", async () => {
    const { gateway, path } = await setup([{ text: "member answer" }, { text: "owner answer" }]);
    const client = await DaemonClient.connect(path);
    const pushes = await subscribe(client);
    await gateway.submit({ userKey: "telegram:55", channel: "telegram", text: "member question" });
    await gateway.idle();
    await gateway.submit({ userKey: "owner", channel: "cli", text: "owner question" });
    await gateway.idle();
    await waitFor(() => pushes.some((push) => push.type === "answer"), 3000, "the owner's answer");
    const users = new Set(
      pushes.flatMap((push) => (push.type === "event" ? [(push.event as { userKey: string }).userKey] : [])),
    );
    expect(users).toEqual(new Set(["owner"]));
    expect(JSON.stringify(pushes)).not.toContain("member answer");
    client.close();
  });

  it("delivers a finished answer to one attached terminal once, and keeps it when none is attached", async () => {
    const { gateway, deliveries, path } = await setup([{ text: "first answer" }]);
    const { taskId } = await gateway.submit({ userKey: "owner", channel: "cli", text: "q" });
    await gateway.idle();
    expect(deliveries.pending("terminal")).toEqual([expect.objectContaining({ taskId, attempts: 0 })]);
    const one = await DaemonClient.connect(path);
    const two = await DaemonClient.connect(path);
    const onePushes = await subscribe(one);
    const twoPushes = await subscribe(two);
    await new Promise((resolve) => setTimeout(resolve, 200));
    const answers = [...onePushes, ...twoPushes].filter((push) => push.type === "answer");
    expect(answers).toEqual([expect.objectContaining({ taskId, text: "first answer" })]);
    expect(deliveries.forTask(taskId)).toEqual([expect.objectContaining({ status: "sent", attempts: 1 })]);
    one.close();
    two.close();
  });
});

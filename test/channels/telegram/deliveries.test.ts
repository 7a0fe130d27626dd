import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { DeliveryStore } from "../../../src/channels/telegram/deliveries.js";
import { deliverPendingReplies } from "../../../src/channels/telegram/pending.js";
import { openDatabase } from "../../../src/storage/database.js";
import { FakeTelegramServer } from "../../fakes/telegram-server.js";
import { OWNER, startHarness } from "./harness.js";

let directory = "";
let server: FakeTelegramServer | null = null;
beforeEach(async () => {
  directory = mkdtempSync(join(tmpdir(), "mercury-tg-db-"));
  server = await FakeTelegramServer.start();
});
afterEach(async () => {
  await server?.close();
  rmSync(directory, { recursive: true, force: true });
});

const countText = (text: string) =>
  server?.messages.filter((message) => message.text.includes(text)).length ?? 0;

describe("delivery records across restarts", () => {
  it("does not send a reply twice when the task-end is replayed after a restart", async () => {
    const path = join(directory, "mercury.db");
    const first = await startHarness({ server: server ?? undefined, database: openDatabase(path) });
    await first.pairOwner();
    first.gateway.onSubmit = (_input, task) => setTimeout(() => task.end("the final answer"), 5);
    first.server.sendUserMessage(OWNER, "question");
    await first.reply(OWNER.id, /the final answer/);
    await first.close({ keepServer: true });
    first.database.close();

    // A new process: new database connection, new gateway; the ledger resumes task-1 and ends it again.
    const second = await startHarness({ server: server ?? undefined, database: openDatabase(path) });
    second.gateway.task("task-1", "owner").end("the final answer");
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(countText("the final answer")).toBe(1);
    const records = new DeliveryStore(second.database).all();
    expect(records.map((record) => [record.status, record.attempts])).toEqual([["sent", 1]]);
    await second.close({ keepServer: true });
    second.database.close();
  });

  it("delivers a reply left pending by a crash exactly once on the next starts", async () => {
    const path = join(directory, "mercury.db");
    const crashed = openDatabase(path);
    // What a crash between "record" and "send" leaves behind.
    new DeliveryStore(crashed).record({
      chatId: OWNER.id,
      taskId: "task-9",
      part: 0,
      text: "answer from before the crash",
    });
    crashed.close();

    for (let start = 0; start < 2; start++) {
      const harness = await startHarness({ server: server ?? undefined, database: openDatabase(path) });
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(countText("answer from before the crash")).toBe(1);
      const [record] = new DeliveryStore(harness.database).all();
      expect(record).toMatchObject({ status: "sent", attempts: 1, lastError: null });
      await harness.close({ keepServer: true });
      harness.database.close();
    }
  });

  it("deliverPendingReplies sends pending records on its own and reports the counts", async () => {
    const path = join(directory, "mercury.db");
    const database = openDatabase(path);
    const store = new DeliveryStore(database);
    store.record({ chatId: OWNER.id, taskId: "t1", part: 0, text: "first pending" });
    store.record({ chatId: OWNER.id, taskId: "t1", part: 1, text: "second pending" });
    const sent = store.record({ chatId: OWNER.id, taskId: "t0", part: 0, text: "already sent" });
    store.markSent(sent.id, 1);
    const fake = server as FakeTelegramServer;
    const first = await deliverPendingReplies({ token: fake.token, apiRoot: fake.apiRoot, database });
    expect(first).toEqual({ attempted: 2, sent: 2, failed: 0 });
    const again = await deliverPendingReplies({ token: fake.token, apiRoot: fake.apiRoot, database });
    expect(again).toEqual({ attempted: 0, sent: 0, failed: 0 });
    expect(fake.chat(OWNER.id).map((message) => message.text)).toEqual(["first pending", "second pending"]);
    database.close();
  });

  it("routes a resumed task of the owner to the chat it came from after a restart", async () => {
    const path = join(directory, "mercury.db");
    const first = await startHarness({ server: server ?? undefined, database: openDatabase(path) });
    await first.pairOwner();
    first.server.sendUserMessage(OWNER, "long job");
    await first.server.waitFor(() => first.gateway.submits.length === 1, 5000, "submit");
    await first.close({ keepServer: true });
    first.database.close();

    const second = await startHarness({ server: server ?? undefined, database: openDatabase(path) });
    second.gateway.task("task-1", "owner").end("resumed and finished");
    await second.reply(OWNER.id, /resumed and finished/);
    await second.close({ keepServer: true });
    second.database.close();
  });
});

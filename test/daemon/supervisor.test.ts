import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createLogger } from "../../src/app/logger.js";
import { Redactor } from "../../src/config/secrets.js";
import { type SupervisedChannel, Supervisor } from "../../src/daemon/supervisor.js";
import { waitFor } from "./daemon-helpers.js";

function logger() {
  return createLogger(mkdtempSync(join(tmpdir(), "mercury-sup-")), "info", new Redactor({}), "daemon.log");
}

function flaky(name: string, failures: number): SupervisedChannel & { starts: number; stops: number } {
  const channel = {
    name,
    starts: 0,
    stops: 0,
    async start() {
      channel.starts += 1;
      if (channel.starts <= failures) throw new Error(`${name} start failure ${channel.starts}`);
    },
    async stop() {
      channel.stops += 1;
    },
    health: () => ({ ok: true }),
  };
  return channel;
}

describe("Supervisor", () => {
  it("restarts a channel whose start fails, with growing backoff, without touching the healthy one", async () => {
    const supervisor = new Supervisor({ logger: logger(), baseDelayMs: 20, maxDelayMs: 1000 });
    const bad = flaky("bad", 2);
    const good = flaky("good", 0);
    await supervisor.add(good);
    await supervisor.add(bad);
    expect(supervisor.status().find((s) => s.name === "bad")).toMatchObject({
      state: "backoff",
      lastError: "bad start failure 1",
    });
    await waitFor(
      () => supervisor.status().find((s) => s.name === "bad")?.state === "running",
      3000,
      "bad to recover",
    );
    expect(bad.starts).toBe(3);
    expect(supervisor.status().find((s) => s.name === "bad")).toMatchObject({
      restarts: 2,
      health: { ok: true },
    });
    expect(good.starts).toBe(1);
    expect(supervisor.status().find((s) => s.name === "good")).toMatchObject({
      state: "running",
      restarts: 0,
    });
    await supervisor.stopAll();
    expect(good.stops).toBe(1);
    expect(bad.stops).toBe(1);
  });

  it("a running channel that reports a failure is stopped and started again", async () => {
    const supervisor = new Supervisor({ logger: logger(), baseDelayMs: 10 });
    const channel = flaky("telegram", 0);
    await supervisor.add(channel);
    supervisor.fail("telegram", new Error("poller died"));
    await waitFor(() => channel.starts === 2, 3000, "the restart");
    expect(channel.stops).toBe(1);
    expect(supervisor.status()[0]).toMatchObject({ state: "running", restarts: 1, lastError: "poller died" });
    await supervisor.stopAll();
  });

  it("stopAll cancels a pending retry: nothing starts after shutdown", async () => {
    const supervisor = new Supervisor({ logger: logger(), baseDelayMs: 50 });
    const channel = flaky("broken", 100);
    await supervisor.add(channel);
    await supervisor.stopAll();
    await new Promise((resolve) => setTimeout(resolve, 150));
    expect(channel.starts).toBe(1);
    expect(supervisor.status()[0]?.state).toBe("stopped");
  });

  it("refuses the same channel twice", async () => {
    const supervisor = new Supervisor({ logger: logger() });
    await supervisor.add(flaky("a", 0));
    await expect(supervisor.add(flaky("a", 0))).rejects.toThrow(/already supervised/);
    await supervisor.stopAll();
  });
});

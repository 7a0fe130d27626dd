import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pino from "pino";
import { describe, expect, it } from "vitest";
import type { ChannelInput } from "../../src/channels/types.js";
import { heartbeatInstructions, startHeartbeat } from "../../src/daemon/heartbeat.js";
import { ensureSoulFiles } from "../../src/soul/soul.js";

const silent = pino({ level: "silent" });

describe("heartbeat", () => {
  it("takes the instructions of heartbeat.md without headings, comments or blank lines", () => {
    expect(heartbeatInstructions("# Heartbeat\n\n<!-- off -->\n- Check paused tasks.\n\n- Say hi.\n")).toBe(
      "- Check paused tasks.\n- Say hi.",
    );
    expect(heartbeatInstructions("# Heartbeat\n\n<!-- nothing -->\n")).toBeNull();
  });

  it("submits the owner's heartbeat task on its own channel each interval, never stacking a running one", async () => {
    const soul = mkdtempSync(join(tmpdir(), "mercury-soul-"));
    ensureSoulFiles(soul);
    writeFileSync(join(soul, "heartbeat.md"), "# Heartbeat\n\n- Tell me what is paused.\n");
    const submitted: ChannelInput[] = [];
    let running = true;
    const stop = startHeartbeat(
      {
        soulDirectory: soul,
        intervalMinutes: 1,
        logger: silent,
        submit: async (input) => {
          submitted.push(input);
          return { taskId: `t${submitted.length}`, sessionId: "s" };
        },
        isRunning: () => running,
      },
      20,
    );
    await new Promise((resolve) => setTimeout(resolve, 110));
    // Five intervals passed while the first heartbeat task was still running: no second one.
    expect(submitted.length).toBe(1);
    running = false;
    await new Promise((resolve) => setTimeout(resolve, 60));
    stop();
    expect(submitted.length).toBeGreaterThanOrEqual(2);
    expect(submitted[0]).toMatchObject({ userKey: "owner", channel: "heartbeat" });
    expect(submitted[0]?.text).toContain("- Tell me what is paused.");
  });

  it("does nothing when the interval is 0 (the default)", async () => {
    let calls = 0;
    const stop = startHeartbeat(
      {
        soulDirectory: mkdtempSync(join(tmpdir(), "mercury-soul-")),
        intervalMinutes: 0,
        logger: silent,
        submit: async () => {
          calls += 1;
          return { taskId: "t", sessionId: "s" };
        },
        isRunning: () => false,
      },
      5,
    );
    await new Promise((resolve) => setTimeout(resolve, 40));
    stop();
    expect(calls).toBe(0);
  });
});

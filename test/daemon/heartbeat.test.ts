import { describe, expect, it } from "vitest";
import { heartbeatInstructions, heartbeatTask } from "../../src/daemon/heartbeat.js";
import { ensureHeartbeatJob, heartbeatJobId } from "../../src/scheduler/daemon.js";
import { JobStore } from "../../src/scheduler/jobs.js";
import { tick } from "../../src/scheduler/tick.js";
import { openMemoryDatabase } from "../../src/storage/database.js";

describe("heartbeat", () => {
  it("takes the instructions of heartbeat.md without headings, comments or blank lines", () => {
    expect(heartbeatInstructions("# Heartbeat\n\n<!-- off -->\n- Check paused tasks.\n\n- Say hi.\n")).toBe(
      "- Check paused tasks.\n- Say hi.",
    );
    expect(heartbeatInstructions("# Heartbeat\n\n<!-- nothing -->\n")).toBeNull();
    expect(heartbeatTask("- Say hi.")).toContain("nobody is waiting at the keyboard");
  });

  it("is an ordinary interval job that follows heartbeat.intervalMinutes: created, rescheduled, paused at 0", () => {
    let now = Date.parse("2026-06-01T08:00:00Z");
    const store = new JobStore(openMemoryDatabase(), { now: () => new Date(now) });
    expect(ensureHeartbeatJob(store, 0, now, "/tmp")).toBeNull();
    const job = ensureHeartbeatJob(store, 30, now, "/tmp");
    expect(job).toMatchObject({ id: heartbeatJobId, status: "active", owner: "owner", delivery: "terminal" });
    expect(job?.spec).toMatchObject({ kind: "interval", minutes: 30 });
    now = Date.parse("2026-06-01T08:30:00Z");
    expect(tick(store, now).fire.map(({ job: fired }) => fired.id)).toEqual([heartbeatJobId]);
    expect(ensureHeartbeatJob(store, 60, now, "/tmp")?.nextDueMs).toBe(Date.parse("2026-06-01T09:30:00Z"));
    const off = ensureHeartbeatJob(store, 0, now, "/tmp");
    expect(off).toMatchObject({
      status: "paused",
      statusReason: "heartbeat.intervalMinutes is 0 in config.yaml",
    });
    expect(tick(store, Date.parse("2026-06-01T09:30:00Z")).recorded[0]?.timing).toBe("skipped");
    expect(ensureHeartbeatJob(store, 60, now, "/tmp")?.status).toBe("active");
  });
});

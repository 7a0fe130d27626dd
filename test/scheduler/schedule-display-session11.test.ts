import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { presentJob } from "../../src/scheduler/create.js";
import { JobStore } from "../../src/scheduler/jobs.js";
import { missedNote } from "../../src/scheduler/missed.js";
import { tick } from "../../src/scheduler/tick.js";
import {
  defaultGraceMs,
  describeSpec,
  gapNote,
  nextDueAfter,
  parseSchedule,
  type ScheduleSpec,
} from "../../src/scheduler/timing.js";
import { openDatabase, openMemoryDatabase, type SqliteDatabase } from "../../src/storage/database.js";
import { makeHome, runCli } from "../helpers/cli.js";

const hour = 3_600_000;

function storeAt(database: SqliteDatabase, startMs: number) {
  let now = startMs;
  const store = new JobStore(database, { now: () => new Date(now) });
  return {
    store,
    at(iso: string) {
      now = Date.parse(iso);
      return now;
    },
    add(text: string, timezone: string) {
      const spec: ScheduleSpec = parseSchedule(text, { timezone, nowMs: now });
      return store.create({
        name: `job ${text}`,
        spec,
        task: "say hi",
        owner: "owner",
        workspace: "/tmp/ws",
        delivery: "none",
        silent: false,
        graceMs: defaultGraceMs(spec, now),
        budget: { runTokens: null, runUsd: null, dayTokens: null, dayUsd: null },
        permissions: null,
        nextDueMs: nextDueAfter(spec, now),
        createdBy: "test",
      });
    },
  };
}

describe("schedules as people write them (session 11)", () => {
  it("intervals read in natural units, never 'every 120 minutes'", () => {
    const nowMs = Date.parse("2026-12-02T00:00:00Z");
    const shown = (text: string) => describeSpec(parseSchedule(text, { timezone: "UTC", nowMs }));
    expect(shown("every 2 hours")).toBe("every 2 hours");
    expect(shown("every 120 minutes")).toBe("every 2 hours");
    expect(shown("every 1 hour")).toBe("every hour");
    expect(shown("every hour")).toBe("every hour");
    expect(shown("every 90 minutes")).toBe("every 90 minutes");
    expect(shown("every 3 days")).toBe("every 3 days");
    expect(shown("every day")).toBe("every day");
    expect(shown("every 1 minute")).toBe("every minute");
    expect(parseSchedule("in 2 days", { timezone: "UTC", nowMs })).toMatchObject({ atMs: nowMs + 48 * hour });
  });

  it("a cron job keeps its wall-clock time across DST and shows it in its zone; a one-shot time in its zone", () => {
    const s = storeAt(openMemoryDatabase(), Date.parse("2027-03-27T12:00:00Z"));
    const job = s.add("0 9 * * *", "Europe/Berlin");
    // The day clocks go forward: 09:00 Berlin is 07:00Z, where it was 08:00Z the day before.
    expect(presentJob(job)).toMatchObject({
      nextDueAt: "2027-03-28T07:00:00.000Z",
      nextDueLocal: "2027-03-28 09:00 Europe/Berlin",
      timezone: "Europe/Berlin",
    });
    const once = s.add("at 2027-03-28T02:30", "Europe/Berlin");
    // 02:30 does not exist that night: it runs at 03:30 and says so instead of showing only UTC.
    const reread = s.store.require(once.id);
    expect(describeSpec(reread.spec)).toBe("once at 2027-03-28 03:30 Europe/Berlin");
    expect(presentJob(reread).nextDueLocal).toBe("2027-03-28 03:30 Europe/Berlin");
    expect(gapNote("at 2027-03-28T02:30", reread.spec)).toMatch(/02:30 does not exist .* runs at 03:30/);
    expect(gapNote("at 2027-03-29T02:30", s.add("at 2027-03-29T02:30", "Europe/Berlin").spec)).toBeNull();
    // The autumn night 02:30 happens twice: the job runs once.
    const autumn = s.add("30 2 * * *", "Europe/Berlin");
    const firstAutumn = nextDueAfter(autumn.spec, Date.parse("2027-10-29T12:00:00Z")) ?? 0;
    const afterIt = nextDueAfter(autumn.spec, firstAutumn) ?? 0;
    expect(afterIt - firstAutumn).toBe(25 * hour);
  });

  it("runs missed while Mercury was down are recorded once and said in `schedule list` (built binary)", async () => {
    const place = makeHome();
    const database = openDatabase(join(place.home, "mercury.db"));
    const s = storeAt(database, Date.parse("2026-06-01T08:00:00Z"));
    const hourly = s.add("every 2 hours", "UTC");
    s.add("0 9 * * *", "Europe/Berlin");
    // Down from 08:00 to 17:30: due 10:00 … 16:00 (4 times), the last 1.5 h ago, outside the 1 h grace.
    const result = tick(s.store, s.at("2026-06-01T17:30:00Z"));
    const recorded = result.recorded.find((run) => run.jobId === hourly.id);
    expect(recorded).toMatchObject({ timing: "missed", status: "missed", collapsed: 4 });
    expect(result.fire.filter((fired) => fired.job.id === hourly.id)).toEqual([]);
    expect(missedNote(s.store, hourly.id)).toMatch(
      /4 due times .* were missed while Mercury was not running/,
    );
    database.close();

    const listed = await runCli(["schedule", "list"], {
      home: place.home,
      userHome: place.userHome,
      cwd: place.workspace,
    });
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toMatch(new RegExp(`${hourly.id} +active +every 2 hours `));
    expect(listed.stdout).not.toContain("120 minutes");
    expect(listed.stdout).toMatch(
      /4 due times from 2026-06-01T10:00:00.000Z to 2026-06-01T16:00:00.000Z were missed/,
    );
    expect(listed.stdout).toMatch(
      /cron "0 9 \* \* \*" \(Europe\/Berlin\) {2}next \S+Z \(\d{4}-\d\d-\d\d 09:00 Europe\/Berlin, /,
    );
  });
});

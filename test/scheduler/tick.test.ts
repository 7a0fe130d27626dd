import { describe, expect, it } from "vitest";
import { JobStore, type NewJob } from "../../src/scheduler/jobs.js";
import { tick } from "../../src/scheduler/tick.js";
import {
  defaultGraceMs,
  nextDueAfter,
  parseSchedule,
  type ScheduleSpec,
  zonedTimeToUtc,
} from "../../src/scheduler/timing.js";
import { openMemoryDatabase } from "../../src/storage/database.js";

const minute = 60_000;
const hour = 60 * minute;

function setup(startIso: string) {
  let now = Date.parse(startIso);
  const clock = { now: () => new Date(now) };
  const store = new JobStore(openMemoryDatabase(), clock);
  return {
    store,
    at: (iso: string) => {
      now = Date.parse(iso);
      return now;
    },
    advance: (ms: number) => {
      now += ms;
      return now;
    },
    now: () => now,
    add(spec: ScheduleSpec, extra: Partial<NewJob> = {}) {
      return store.create({
        name: "job",
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
        ...extra,
      });
    },
  };
}

describe("scheduler timing (injected clock)", () => {
  it("never fires before the due time, and fires on time at it", () => {
    const s = setup("2026-06-01T08:00:00Z");
    const job = s.add(parseSchedule("0 9 * * *", { timezone: "UTC", nowMs: s.now() }));
    expect(tick(s.store, s.at("2026-06-01T08:59:59.999Z")).fire).toHaveLength(0);
    const fired = tick(s.store, s.at("2026-06-01T09:00:00.000Z")).fire;
    expect(fired).toHaveLength(1);
    expect(fired[0]?.run.timing).toBe("on-time");
    expect(fired[0]?.run.lateMs).toBe(0);
    // The same instant again claims nothing: a due time runs once.
    expect(tick(s.store, s.now()).fire).toHaveLength(0);
    expect(s.store.require(job.id).nextDueMs).toBe(Date.parse("2026-06-02T09:00:00Z"));
  });

  it("catches up once after downtime: missed due times collapse into one late run with how late", () => {
    const s = setup("2026-06-01T10:00:00Z");
    const job = s.add(parseSchedule("every 10 minutes", { timezone: "UTC", nowMs: s.now() }));
    expect(job.graceMs).toBe(5 * minute);
    // Down from 10:00 to 10:53: due 10:10 … 10:50 (5 times). 10:50 is 3 min ago, inside the 5 min grace.
    const result = tick(s.store, s.at("2026-06-01T10:53:00Z"));
    expect(result.fire).toHaveLength(1);
    const run = result.fire[0]?.run;
    expect(run?.timing).toBe("late");
    expect(run?.collapsed).toBe(5);
    expect(run?.lateMs).toBe(3 * minute);
    expect(run?.firstDueMs).toBe(Date.parse("2026-06-01T10:10:00Z"));
    expect(tick(s.store, s.now()).fire).toHaveLength(0);
    expect(s.store.require(job.id).nextDueMs).toBe(Date.parse("2026-06-01T11:00:00Z"));
  });

  it("records a due time outside the grace window as missed and does not run it", () => {
    const s = setup("2026-06-01T08:00:00Z");
    const job = s.add(parseSchedule("0 9 * * *", { timezone: "UTC", nowMs: s.now() }));
    expect(job.graceMs).toBe(2 * hour);
    const result = tick(s.store, s.at("2026-06-01T11:30:00Z"));
    expect(result.fire).toHaveLength(0);
    expect(result.recorded).toHaveLength(1);
    expect(result.recorded[0]?.timing).toBe("missed");
    expect(result.recorded[0]?.status).toBe("missed");
    expect(result.recorded[0]?.lateMs).toBe(2.5 * hour);
    expect(result.recorded[0]?.reason).toMatch(/outside the grace window/);
    // The next day is untouched.
    expect(s.store.require(job.id).nextDueMs).toBe(Date.parse("2026-06-02T09:00:00Z"));
  });

  it("a one-shot job gets two hours of grace, then is done", () => {
    const s = setup("2026-06-01T08:00:00Z");
    const job = s.add(parseSchedule("in 30 minutes", { timezone: "UTC", nowMs: s.now() }));
    expect(job.graceMs).toBe(2 * hour);
    const fired = tick(s.store, s.at("2026-06-01T10:00:00Z")).fire;
    expect(fired[0]?.run.timing).toBe("late");
    expect(s.store.require(job.id).status).toBe("done");
    expect(tick(s.store, s.advance(10 * hour)).fire).toHaveLength(0);
  });

  it("a job paused during downtime is skipped and says so; resuming does not replay the pause", () => {
    const s = setup("2026-06-01T08:00:00Z");
    const job = s.add(parseSchedule("every 30 minutes", { timezone: "UTC", nowMs: s.now() }));
    s.store.setStatus(job.id, "paused", "paused by owner");
    const result = tick(s.store, s.at("2026-06-01T09:40:00Z"));
    expect(result.fire).toHaveLength(0);
    expect(result.recorded[0]?.timing).toBe("skipped");
    expect(result.recorded[0]?.reason).toBe("skipped: the job is paused (paused by owner)");
    expect(result.recorded[0]?.collapsed).toBe(3);
    s.store.setStatus(job.id, "active", null);
    expect(tick(s.store, s.now()).fire).toHaveLength(0);
    expect(tick(s.store, s.at("2026-06-01T10:00:00Z")).fire[0]?.run.timing).toBe("on-time");
  });

  it("DST forward in America/New_York: the 02:30 run on the gap day fires once, at 03:30 EDT", () => {
    const s = setup("2026-03-07T12:00:00Z");
    s.add(parseSchedule("30 2 * * *", { timezone: "America/New_York", nowMs: s.now() }));
    const fires: string[] = [];
    for (let t = s.now(); t < Date.parse("2026-03-09T12:00:00Z"); t += minute) {
      for (const { run } of tick(s.store, s.at(new Date(t).toISOString())).fire)
        fires.push(new Date(run.dueMs).toISOString());
    }
    // Mar 8 02:30 does not exist in New York; Mar 9 is EDT.
    expect(fires).toEqual(["2026-03-08T07:30:00.000Z", "2026-03-09T06:30:00.000Z"]);
  });

  it("DST back in America/New_York: the repeated 01:30 runs once that day", () => {
    const s = setup("2026-10-31T12:00:00Z");
    s.add(parseSchedule("30 1 * * *", { timezone: "America/New_York", nowMs: s.now() }));
    const fires: string[] = [];
    for (let t = s.now(); t < Date.parse("2026-11-02T12:00:00Z"); t += minute) {
      for (const { run } of tick(s.store, s.at(new Date(t).toISOString())).fire)
        fires.push(new Date(run.dueMs).toISOString());
    }
    expect(fires).toEqual(["2026-11-01T05:30:00.000Z", "2026-11-02T06:30:00.000Z"]);
  });

  it("DST in Europe/Berlin: a daily 02:30 fires once on both transition days, never twice, never skipped", () => {
    for (const [start, end, expected] of [
      [
        "2026-03-28T12:00:00Z",
        "2026-03-30T12:00:00Z",
        ["2026-03-29T01:30:00.000Z", "2026-03-30T00:30:00.000Z"],
      ],
      [
        "2026-10-24T12:00:00Z",
        "2026-10-26T12:00:00Z",
        ["2026-10-25T01:30:00.000Z", "2026-10-26T01:30:00.000Z"],
      ],
    ] as const) {
      const s = setup(start);
      s.add(parseSchedule("30 2 * * *", { timezone: "Europe/Berlin", nowMs: s.now() }));
      const fires: string[] = [];
      for (let t = s.now(); t < Date.parse(end); t += minute) {
        for (const { run } of tick(s.store, s.at(new Date(t).toISOString())).fire)
          fires.push(new Date(run.dueMs).toISOString());
      }
      expect(fires).toEqual(expected);
    }
  });

  it("an interval job keeps real elapsed time across DST (no doubled or lost hour)", () => {
    const s = setup("2026-11-01T04:00:00Z");
    s.add(parseSchedule("every 60 minutes", { timezone: "America/New_York", nowMs: s.now() }));
    let count = 0;
    for (let t = s.now(); t <= Date.parse("2026-11-01T10:00:00Z"); t += minute)
      count += tick(s.store, s.at(new Date(t).toISOString())).fire.length;
    expect(count).toBe(6);
  });

  it("a one-shot local time in a zone is read in that zone, also on a transition day", () => {
    expect(zonedTimeToUtc("2026-07-01T09:00", "Europe/Berlin")).toBe(Date.parse("2026-07-01T07:00:00Z"));
    expect(zonedTimeToUtc("2026-03-08T02:30", "America/New_York")).toBe(Date.parse("2026-03-08T07:30:00Z"));
    expect(zonedTimeToUtc("2026-11-01T01:30", "America/New_York")).toBe(Date.parse("2026-11-01T05:30:00Z"));
  });

  it("bad schedules and zones are refused with what to write instead", () => {
    const nowMs = Date.parse("2026-06-01T00:00:00Z");
    expect(() => parseSchedule("0 9 * *", { timezone: "UTC", nowMs })).toThrow(/use exactly 5|cannot read/);
    expect(() => parseSchedule("0 0 9 * * *", { timezone: "UTC", nowMs })).toThrow(/5/);
    expect(() => parseSchedule("every weekday", { timezone: "UTC", nowMs })).toThrow(/every 30 minutes/);
    expect(() => parseSchedule("0 9 * * *", { timezone: "Mars/Olympus", nowMs })).toThrow(/IANA time zone/);
    expect(() => parseSchedule("at 2020-01-01T10:00", { timezone: "UTC", nowMs })).toThrow(/in the past/);
    expect(() => parseSchedule("every 0 minutes", { timezone: "UTC", nowMs })).toThrow(/between 1 minute/);
    expect(() => parseSchedule("61 9 * * *", { timezone: "UTC", nowMs })).toThrow(/invalid/);
  });

  it("two schedulers ticking the same database claim a due time once", () => {
    const s = setup("2026-06-01T08:00:00Z");
    s.add(parseSchedule("every 5 minutes", { timezone: "UTC", nowMs: s.now() }));
    const other = new JobStore(
      (s.store as unknown as { database: ReturnType<typeof openMemoryDatabase> }).database,
      { now: () => new Date(s.now()) },
    );
    s.at("2026-06-01T08:05:00Z");
    const job = s.store.due(s.now())[0];
    if (!job) throw new Error("job not due");
    const plan = {
      action: "fire" as const,
      timing: "on-time" as const,
      dueMs: s.now(),
      firstDueMs: s.now(),
      collapsed: 1,
      lateMs: 0,
      nextDueMs: s.now() + 5 * minute,
    };
    expect(s.store.claim(job, plan, s.now())).not.toBeNull();
    expect(other.claim(job, plan, s.now())).toBeNull();
  });
});

describe("parseSchedule: impossible calendar times", () => {
  const nowMs = Date.parse("2026-06-01T08:00:00Z");
  for (const text of [
    "at 2027-02-29T10:00",
    "at 2028-02-30 10:00",
    "at 2027-06-31T10:00",
    "at 2027-01-01T24:00",
    "at 2027-01-01T10:00:60+02:00",
  ]) {
    it(`refuses "${text}" instead of rolling it over`, () => {
      expect(() => parseSchedule(text, { timezone: "Europe/Berlin", nowMs })).toThrow(
        /not a real date and time/,
      );
    });
  }
  it("accepts a leap day that exists", () => {
    const spec = parseSchedule("at 2028-02-29T10:00", { timezone: "UTC", nowMs });
    expect(spec).toEqual({ kind: "once", atMs: Date.parse("2028-02-29T10:00:00Z") });
  });
});

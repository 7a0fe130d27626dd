import { Cron } from "croner";

/** When a job is due: 5 cron fields read in an IANA zone, a fixed interval, or one instant. */
export type ScheduleSpec =
  | { kind: "cron"; expression: string; timezone: string }
  | { kind: "interval"; minutes: number; anchorMs: number }
  /** `timezone` is the zone the time was written in (shown back in it); absent on old rows. */
  | { kind: "once"; atMs: number; timezone?: string };

export class ScheduleError extends Error {
  override name = "ScheduleError";
}

const minuteMs = 60_000;
const hourMs = 60 * minuteMs;
/** A run fired this close to its due time is on time; beyond it (or collapsing several) it is late. */
export const onTimeToleranceMs = minuteMs;
const maxIntervalMinutes = 366 * 24 * 60;

export function systemTimezone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC";
}

/** Throws a ScheduleError naming the zone when it is not an IANA zone this Node knows. */
export function validateTimezone(timezone: string): string {
  try {
    return new Intl.DateTimeFormat("en-US", { timeZone: timezone }).resolvedOptions().timeZone;
  } catch {
    throw new ScheduleError(
      `"${timezone}" is not an IANA time zone; use a name such as Europe/Berlin, America/New_York or UTC`,
    );
  }
}

function cronFor(expression: string, timezone: string): Cron {
  const fields = expression.trim().split(/\s+/);
  if (fields.length !== 5) {
    throw new ScheduleError(
      `cron expression "${expression}" has ${fields.length} fields; use exactly 5 (minute hour day-of-month month day-of-week), e.g. "0 9 * * 1-5"`,
    );
  }
  try {
    return new Cron(fields.join(" "), { timezone, paused: true });
  } catch (error) {
    throw new ScheduleError(
      `cron expression "${expression}" is invalid: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}

/**
 * Reads what a person or the model writes: `every N minutes|hours`, 5 cron fields, `at <ISO time>`
 * (or a bare ISO time) or `in N minutes|hours`. The time zone applies to cron fields and to an ISO
 * time without an offset.
 */
export function parseSchedule(text: string, options: { timezone: string; nowMs: number }): ScheduleSpec {
  const trimmed = text.trim();
  const timezone = validateTimezone(options.timezone);
  const every = /^every\s+(\d+\s*)?(m|min|mins|minute|minutes|h|hr|hrs|hour|hours|d|day|days)$/i.exec(
    trimmed,
  );
  if (every) {
    const count = every[1] === undefined ? 1 : Number(every[1]);
    const minutes = count * unitMinutes(every[2] ?? "");
    if (!Number.isInteger(minutes) || minutes < 1 || minutes > maxIntervalMinutes) {
      throw new ScheduleError(`interval "${trimmed}" must be between 1 minute and 366 days`);
    }
    return { kind: "interval", minutes, anchorMs: options.nowMs };
  }
  const relative = /^in\s+(\d+)\s*(m|min|mins|minute|minutes|h|hr|hrs|hour|hours|d|day|days)$/i.exec(trimmed);
  if (relative) {
    const count = Number(relative[1]);
    const ms = count * unitMinutes(relative[2] ?? "") * minuteMs;
    if (ms < minuteMs) throw new ScheduleError(`"${trimmed}": the delay must be at least 1 minute`);
    return { kind: "once", atMs: options.nowMs + ms, ...zoneField(timezone) };
  }
  const at = /^(?:at\s+)?(\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2})?(?:\.\d+)?)(Z|[+-]\d{2}:?\d{2})?$/i.exec(
    trimmed,
  );
  if (at) {
    const local = (at[1] ?? "").replace(" ", "T");
    // Date.parse rolls impossible days over ("2027-02-30" → March 2); a job must never run on a day nobody wrote.
    if (!isCalendarTime(local)) {
      throw new ScheduleError(
        `"${trimmed}" is not a real date and time; check the day of the month and the hour`,
      );
    }
    const atMs = at[2] ? Date.parse(`${local}${at[2]}`) : zonedTimeToUtc(local, timezone);
    if (!Number.isFinite(atMs)) throw new ScheduleError(`"${trimmed}" is not a valid date and time`);
    if (atMs <= options.nowMs) {
      throw new ScheduleError(
        `"${trimmed}" is in the past (now is ${new Date(options.nowMs).toISOString()}); give a future time`,
      );
    }
    return { kind: "once", atMs, ...zoneField(timezone) };
  }
  if (/^[\d*,/\-A-Za-z?LW#]+(\s+[\d*,/\-A-Za-z?LW#]+){4}$/.test(trimmed)) {
    cronFor(trimmed, timezone);
    return { kind: "cron", expression: trimmed, timezone };
  }
  throw new ScheduleError(
    `cannot read the schedule "${trimmed}"; write "every 30 minutes", 5 cron fields such as "0 9 * * 1-5", "at 2026-12-24T18:00" or "in 20 minutes"`,
  );
}

/** A one-shot time remembers a zone other than UTC (ISO times are UTC already). */
function zoneField(timezone: string): { timezone?: string } {
  return timezone === "UTC" ? {} : { timezone };
}

function unitMinutes(unit: string): number {
  if (/^d/i.test(unit)) return 24 * 60;
  if (/^h/i.test(unit)) return 60;
  return 1;
}

function isCalendarTime(local: string): boolean {
  const parts = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2}))?/.exec(local);
  if (!parts) return false;
  const [year, month, day, hours, minutes, seconds] = parts.slice(1).map((part) => Number(part ?? "0"));
  if (hours === undefined || minutes === undefined || seconds === undefined) return false;
  if (hours > 23 || minutes > 59 || seconds > 59) return false;
  const date = new Date(Date.UTC(year ?? 0, (month ?? 0) - 1, day ?? 0));
  return date.getUTCFullYear() === year && date.getUTCMonth() + 1 === month && date.getUTCDate() === day;
}

/**
 * The UTC instant of a wall-clock time in a zone. A time skipped by a spring-forward gap moves
 * forward by the gap (02:30 → 03:30), like cron; an ambiguous fall-back time takes the first one.
 */
export function zonedTimeToUtc(local: string, timezone: string): number {
  const asUtc = Date.parse(`${local}Z`);
  if (!Number.isFinite(asUtc)) return Number.NaN;
  // The zone's offset a day either side of the time; near a transition they differ.
  const before = asUtc - offsetMs(asUtc - 24 * hourMs, timezone);
  const after = asUtc - offsetMs(asUtc + 24 * hourMs, timezone);
  const wanted = new Date(asUtc).toISOString();
  const matching = [before, after].filter((candidate) => wallClock(candidate, timezone) === wanted);
  if (matching.length > 0) return Math.min(...matching);
  // In a spring-forward gap: read with the offset before it, which lands after the gap.
  return before;
}

function offsetMs(instantMs: number, timezone: string): number {
  const parts = new Intl.DateTimeFormat("en-US", {
    timeZone: timezone,
    hourCycle: "h23",
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
    hour: "2-digit",
    minute: "2-digit",
    second: "2-digit",
  }).formatToParts(new Date(instantMs));
  const get = (type: string) => Number(parts.find((part) => part.type === type)?.value ?? "0");
  const wall = Date.UTC(get("year"), get("month") - 1, get("day"), get("hour"), get("minute"), get("second"));
  return wall - Math.floor(instantMs / 1000) * 1000;
}

function wallClock(instantMs: number, timezone: string): string {
  return new Date(instantMs + offsetMs(instantMs, timezone)).toISOString();
}

/** The first due time strictly after `afterMs`, or null when the job will never be due again. */
export function nextDueAfter(spec: ScheduleSpec, afterMs: number): number | null {
  switch (spec.kind) {
    case "once":
      return spec.atMs > afterMs ? spec.atMs : null;
    case "interval": {
      const period = spec.minutes * minuteMs;
      if (afterMs < spec.anchorMs) return spec.anchorMs + period;
      const steps = Math.floor((afterMs - spec.anchorMs) / period) + 1;
      return spec.anchorMs + steps * period;
    }
    case "cron": {
      const next = cronFor(spec.expression, spec.timezone).nextRun(new Date(afterMs));
      return next ? next.getTime() : null;
    }
  }
}

/** The last due time at or before `atMs` counting from `fromMs` (inclusive), and how many there were. */
export function lastDueAtOrBefore(
  spec: ScheduleSpec,
  fromMs: number,
  atMs: number,
): { lastMs: number; count: number } | null {
  if (fromMs > atMs) return null;
  if (spec.kind === "interval") {
    const period = spec.minutes * minuteMs;
    const count = Math.floor((atMs - fromMs) / period) + 1;
    return { lastMs: fromMs + (count - 1) * period, count };
  }
  if (spec.kind === "once") return { lastMs: fromMs, count: 1 };
  const cron = cronFor(spec.expression, spec.timezone);
  let lastMs = fromMs;
  let count = 1;
  // Bounded walk: a year of minutely runs is 525,600 steps; beyond that the count is a lower bound.
  for (let guard = 0; guard < 600_000; guard++) {
    const next = cron.nextRun(new Date(lastMs));
    if (!next || next.getTime() > atMs) break;
    lastMs = next.getTime();
    count++;
  }
  return { lastMs, count };
}

/** Default grace window: half the period, clamped to 2 minutes–2 hours; 2 hours for a one-shot job. */
export function defaultGraceMs(spec: ScheduleSpec, nowMs: number): number {
  if (spec.kind === "once") return 2 * hourMs;
  let period: number;
  if (spec.kind === "interval") period = spec.minutes * minuteMs;
  else {
    const first = nextDueAfter(spec, nowMs);
    const second = first === null ? null : nextDueAfter(spec, first);
    period = first !== null && second !== null ? second - first : 2 * hourMs * 2;
  }
  return Math.min(2 * hourMs, Math.max(2 * minuteMs, Math.floor(period / 2)));
}

export interface DueState {
  spec: ScheduleSpec;
  status: "active" | "paused" | "done" | "removed";
  nextDueMs: number | null;
  graceMs: number;
}

export type DuePlan =
  | { action: "wait" }
  | {
      action: "fire" | "miss" | "skip";
      timing: "on-time" | "late" | "missed" | "skipped";
      dueMs: number;
      firstDueMs: number;
      collapsed: number;
      lateMs: number;
      /** The job's next due time after this one; null when it will never be due again. */
      nextDueMs: number | null;
    };

/**
 * The timing rule, pure: never before the due time; every due time passed since the last tick
 * collapses into one decision about the latest of them — fire (late when it is a catch-up) when
 * it lies within the grace window, otherwise recorded missed; a paused job's due times are skipped.
 */
export function planDue(state: DueState, nowMs: number): DuePlan {
  if (state.status === "done" || state.status === "removed") return { action: "wait" };
  if (state.nextDueMs === null || state.nextDueMs > nowMs) return { action: "wait" };
  const span = lastDueAtOrBefore(state.spec, state.nextDueMs, nowMs);
  if (!span) return { action: "wait" };
  const lateMs = nowMs - span.lastMs;
  const base = {
    dueMs: span.lastMs,
    firstDueMs: state.nextDueMs,
    collapsed: span.count,
    lateMs,
    nextDueMs: nextDueAfter(state.spec, span.lastMs),
  };
  if (state.status === "paused") return { action: "skip", timing: "skipped", ...base };
  if (lateMs > state.graceMs) return { action: "miss", timing: "missed", ...base };
  const late = span.count > 1 || lateMs > onTimeToleranceMs;
  return { action: "fire", timing: late ? "late" : "on-time", ...base };
}

/**
 * A schedule the way a person says it: "every 2 hours" (never "every 120 minutes"), "every 3 days",
 * a cron expression with its zone, a one-shot time in the zone it was written in.
 */
export function describeSpec(spec: ScheduleSpec): string {
  switch (spec.kind) {
    case "cron":
      return `cron "${spec.expression}" (${spec.timezone})`;
    case "interval":
      return `every ${naturalMinutes(spec.minutes)}`;
    case "once":
      return spec.timezone === undefined || spec.timezone === "UTC"
        ? `once at ${new Date(spec.atMs).toISOString()}`
        : `once at ${formatInZone(spec.atMs, spec.timezone)}`;
  }
}

function naturalMinutes(minutes: number): string {
  const [count, unit] =
    minutes % (24 * 60) === 0
      ? [minutes / (24 * 60), "day"]
      : minutes % 60 === 0
        ? [minutes / 60, "hour"]
        : [minutes, "minute"];
  return count === 1 ? unit : `${count} ${unit}s`;
}

/** "2027-03-28 03:30 Europe/Berlin": the wall-clock time in a zone, for people. */
export function formatInZone(instantMs: number, timezone: string): string {
  const wall = wallClock(instantMs, timezone);
  return `${wall.slice(0, 10)} ${wall.slice(11, 16)} ${timezone}`;
}

/** The zone a job's times are shown in: its cron or one-shot zone; null for an interval (any zone reads it). */
export function zoneOf(spec: ScheduleSpec): string | null {
  if (spec.kind === "cron") return spec.timezone;
  if (spec.kind === "once" && spec.timezone !== undefined && spec.timezone !== "UTC") return spec.timezone;
  return null;
}

/**
 * When a written local time does not exist (a spring-forward gap: "02:30" on the night clocks jump
 * to 03:00) the job runs at the same distance past the gap; says so, or null when the time exists.
 */
export function gapNote(text: string, spec: ScheduleSpec): string | null {
  if (spec.kind !== "once" || spec.timezone === undefined) return null;
  const written = /(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2})/.exec(text.trim());
  if (!written || /(Z|[+-]\d{2}:?\d{2})$/i.test(text.trim())) return null;
  const shown = formatInZone(spec.atMs, spec.timezone);
  if (shown.startsWith(`${written[1]} ${written[2]}`)) return null;
  return `${written[1]} ${written[2]} does not exist in ${spec.timezone} (the clocks go forward that night); it runs at ${shown.slice(11, 16)}`;
}

/** Human-readable log lines for `mercury logs` (the file keeps pino's JSON; `--json` prints it raw). */

const levels: Record<number, { name: string; color: number }> = {
  10: { name: "TRACE", color: 90 },
  20: { name: "DEBUG", color: 90 },
  30: { name: "INFO ", color: 32 },
  40: { name: "WARN ", color: 33 },
  50: { name: "ERROR", color: 31 },
  60: { name: "FATAL", color: 31 },
};

/** Fields every pino line carries, shown in the prefix or not at all. */
const structural = new Set(["level", "time", "pid", "hostname", "msg", "component", "v"]);

function pad(value: number, width = 2): string {
  return String(value).padStart(width, "0");
}

/** Local time, to the millisecond: "2026-12-01 14:03:07.123". */
export function localTimestamp(epochMs: number): string {
  const at = new Date(epochMs);
  return `${at.getFullYear()}-${pad(at.getMonth() + 1)}-${pad(at.getDate())} ${pad(at.getHours())}:${pad(at.getMinutes())}:${pad(at.getSeconds())}.${pad(at.getMilliseconds(), 3)}`;
}

function fieldValue(value: unknown): string {
  if (typeof value === "string") return /\s/.test(value) ? JSON.stringify(value) : value;
  if (value && typeof value === "object" && "message" in value && typeof value.message === "string") {
    return JSON.stringify(value.message);
  }
  return JSON.stringify(value);
}

/** One pino JSON line → "time LEVEL component: message key=value"; anything else is returned as it is. */
export function formatLogLine(line: string, colors: boolean): string {
  if (!line.startsWith("{")) return line;
  let record: Record<string, unknown>;
  try {
    const parsed: unknown = JSON.parse(line);
    if (!parsed || typeof parsed !== "object" || Array.isArray(parsed)) return line;
    record = parsed as Record<string, unknown>;
  } catch {
    return line;
  }
  const level = typeof record.level === "number" ? levels[record.level] : undefined;
  const time = typeof record.time === "number" ? localTimestamp(record.time) : "";
  const levelText = level
    ? level.name
    : String(record.level ?? "")
        .toUpperCase()
        .padEnd(5);
  const paintedLevel = colors && level ? `\x1b[${level.color}m${levelText}\x1b[0m` : levelText;
  const component = typeof record.component === "string" ? `${record.component}: ` : "";
  const message = typeof record.msg === "string" ? record.msg : "";
  const extras = Object.entries(record)
    .filter(([key]) => !structural.has(key))
    .map(([key, value]) => `${key}=${fieldValue(value)}`);
  return [time, paintedLevel, `${component}${message}`, ...extras].filter((part) => part !== "").join(" ");
}

/** Formats a stream of chunks line by line, holding back a partial last line until it is complete. */
export function lineFormatter(format: (line: string) => string): (chunk: string) => string {
  let partial = "";
  return (chunk) => {
    const text = partial + chunk;
    const lines = text.split("\n");
    partial = lines.pop() ?? "";
    return lines.map((line) => `${format(line)}\n`).join("");
  };
}

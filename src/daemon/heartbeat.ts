/**
 * The standing instructions of heartbeat.md: its lines without headings, comments and blank lines.
 * Null when nothing is left (the file is then a way to turn heartbeats off).
 */
export function heartbeatInstructions(markdown: string): string | null {
  const lines = markdown
    .replace(/<!--[\s\S]*?-->/g, "")
    .split(/\r?\n/)
    .map((line) => line.trimEnd())
    .filter((line) => line.trim() !== "" && !line.trimStart().startsWith("#"));
  const body = lines.join("\n").trim();
  return body === "" ? null : body;
}

/** The heartbeat job's task text (src/scheduler/daemon.ts runs it as the interval job "heartbeat"). */
export function heartbeatTask(instructions: string): string {
  return `Heartbeat check-in (scheduled; nobody is waiting at the keyboard). Follow these standing instructions, then report briefly:\n${instructions}`;
}

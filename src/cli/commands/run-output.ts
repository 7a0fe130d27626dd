import type { AgentEvent, EventBus } from "../../agent/events.js";
import type { TaskReport } from "../../agent/runtime.js";
import type { Redactor } from "../../config/secrets.js";

/** Facts about one run that the report does not carry: how long it took and how many model steps. */
export function trackRun(bus: EventBus): { steps(): number; durationMs(): number; stop(): void } {
  const startedAt = performance.now();
  let steps = 0;
  const stop = bus.subscribe((event) => {
    if (event.type === "step-start") steps = Math.max(steps, event.step);
  });
  return { steps: () => steps, durationMs: () => Math.round(performance.now() - startedAt), stop };
}

/** `isError` is true exactly when the task did not do what was asked and will not resume by itself. */
export function isErrorOutcome(outcome: TaskReport["outcome"]): boolean {
  return outcome === "failed" || outcome === "cancelled";
}

/** `--output stream-json`: every event as one JSON line on stdout, secrets redacted. */
export function streamEventsAsJson(bus: EventBus, redactor: Redactor): () => void {
  return bus.subscribe((event: AgentEvent) => {
    process.stdout.write(`${redactor.redact(JSON.stringify(event))}\n`);
  });
}

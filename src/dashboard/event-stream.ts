import type { Hono } from "hono";
import { streamSSE } from "hono/streaming";
import type { AgentEvent } from "../agent/events.js";
import type { DashboardEnv } from "./guard.js";
import { type DashboardServices, ownerEvents } from "./services.js";

/**
 * `/events`: the owner's agent events as Server-Sent Events, from the same bus the terminal and
 * Telegram read. The browser renders them as text (app.js uses textContent only). A stream never
 * fails mid-way with a throw: when the client goes, it unsubscribes.
 */
export function registerEventStream(
  app: Hono<DashboardEnv>,
  services: DashboardServices,
  streams: Set<() => void>,
): void {
  app.get("/events", (c) =>
    streamSSE(c, async (stream) => {
      let end: () => void = () => undefined;
      const ended = new Promise<void>((resolve) => {
        end = resolve;
      });
      const send = (event: AgentEvent) => {
        // A failed write means the browser went away: the stream ends and unsubscribes (not an error).
        stream.writeSSE({ event: "agent", data: JSON.stringify(event) }).catch(() => end());
      };
      const unsubscribe = ownerEvents(services, send);
      streams.add(end);
      stream.onAbort(() => end());
      // The first message tells the page it is connected (tests and the status dot wait for it).
      await stream.writeSSE({ event: "ready", data: "{}" });
      await ended;
      unsubscribe();
      streams.delete(end);
      await stream.close();
    }),
  );
}

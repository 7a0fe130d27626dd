import type { Hono } from "hono";
import { z } from "zod";
import type { DashboardEnv } from "../guard.js";
import { html } from "../html.js";
import { type DashboardServices, dashboardChannel } from "../services.js";
import { page } from "./layout.js";

const chatRequest = z.object({ text: z.string().trim().min(1).max(100_000) });

/**
 * Chat: the message goes to the gateway like a terminal line; the answer streams back over
 * `/events` (text deltas, tool calls, approvals, the task's end), rendered by app.js as text.
 */
export function registerChatPages(app: Hono<DashboardEnv>, services: DashboardServices): void {
  app.get("/chat", (c) =>
    page(
      c,
      { title: "Chat" },
      html`<section id="chat-log" aria-live="polite"></section>
<form id="chat-form" method="post" action="/chat">
<label for="chat-input">Message</label>
<textarea id="chat-input" name="text" rows="3" required></textarea>
<button type="submit">Send</button>
<button type="button" id="chat-stop">Stop</button>
<span id="stream-state">connecting…</span>
</form>`,
    ),
  );

  app.post("/chat", async (c) => {
    const parsed = chatRequest.safeParse(await c.req.json().catch((error: unknown) => ({ error })));
    if (!parsed.success)
      return c.json({ ok: false, error: 'send {"text": "…"} with a non-empty message' }, 400);
    try {
      const submitted = await services.gateway.submit({
        userKey: services.ownerKey,
        channel: dashboardChannel,
        text: parsed.data.text,
      });
      return c.json({ ok: true, ...submitted });
    } catch (error) {
      return c.json({ ok: false, error: error instanceof Error ? error.message : String(error) }, 409);
    }
  });

  app.post("/chat/stop", async (c) => {
    const stopped = await services.gateway.stop(services.ownerKey);
    return c.json({ ok: true, stopped });
  });
}

import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { AgentEvent } from "../../src/agent/events.js";
import { createApp } from "../../src/app/container.js";
import { ScriptedModel } from "../fakes/scripted-model.js";
import { allowEverything } from "../helpers/agent-harness.js";

describe("background memory work after a task", () => {
  it("shows an embedding failure to the user as a notice instead of only logging it", async () => {
    const home = mkdtempSync(join(tmpdir(), "mercury-bg-"));
    writeFileSync(join(home, "config.yaml"), "retry:\n  attempts: 1\n  baseDelayMs: 1\n  maxDelayMs: 1\n");
    const model = new ScriptedModel([{ text: "Noted." }, { text: '{"memories":[]}' }]);
    const app = createApp({
      env: {
        MERCURY_HOME: home,
        MERCURY_PROVIDER: "openai-compatible",
        MERCURY_BASE_URL: "http://127.0.0.1:9/v1",
        MERCURY_MODEL: "m",
        // Port 9 is refused by fetch: the embedding server is "down".
        MERCURY_EMBEDDINGS_PROVIDER: "openai-compatible",
        MERCURY_EMBEDDINGS_BASE_URL: "http://127.0.0.1:9/v1",
        MERCURY_EMBEDDINGS_MODEL: "e",
        MERCURY_EMBEDDINGS_DIMENSIONS: "8",
      },
      modelFactory: () => model,
      extractAfterTasks: true,
    });
    const notices: AgentEvent[] = [];
    app.bus.subscribe((event) => {
      if (event.type === "notice") notices.push(event);
    });
    try {
      await app.agent.run({
        userKey: "owner",
        channel: "test",
        input: "I like green tea",
        cwd: home,
        signal: new AbortController().signal,
        authorizerFor: () => allowEverything,
      });
      await app.drain(10_000);
      const messages = notices.map((event) => (event.type === "notice" ? event.message : ""));
      expect(messages.some((message) => message.startsWith("computing memory vectors failed"))).toBe(true);
    } finally {
      app.close();
    }
  });
});

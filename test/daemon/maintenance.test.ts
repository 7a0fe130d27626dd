import { describe, expect, it } from "vitest";
import { createApp } from "../../src/app/container.js";
import { runMaintenance } from "../../src/daemon/maintenance.js";
import { ScriptedModel } from "../fakes/scripted-model.js";
import { oneAttemptHome, scriptedProviderEnv } from "../helpers/scripted-app.js";

describe("daemon maintenance pass", () => {
  it("retries a queued extraction once the provider answers again, and stores the memory", async () => {
    const home = oneAttemptHome("mercury-maint-");
    const model = new ScriptedModel([
      { error: { status: 503, message: "overloaded" } },
      {
        text: JSON.stringify({
          memories: [
            {
              kind: "preference",
              text: "The user prefers tea.",
              evidence: "user-stated",
              importance: "normal",
              sourceQuote: "I prefer tea",
            },
          ],
        }),
      },
    ]);
    const app = createApp({
      env: scriptedProviderEnv(home),
      modelFactory: () => model,
    });
    try {
      const memory = app.memory;
      if (!memory) throw new Error("memory should be enabled by default");
      const session = app.agent.transcriptStore.createSession("owner", "test");
      memory.enqueueExtraction({
        userKey: "owner",
        sessionId: session,
        messageIds: [],
        transcriptExcerpt: "User: I prefer tea",
      });

      await runMaintenance(app, app.logger, new AbortController().signal);
      expect(memory.list({ userKey: "owner" })).toEqual([]);
      expect(memory.stats("owner").extraction.jobs.queued).toBe(1);

      // The job waits for its backoff; move past it by asking again later (the runner's clock).
      const job = app.database
        .prepare("UPDATE extraction_jobs SET next_attempt_at = ?")
        .run(new Date(0).toISOString());
      expect(job.changes).toBe(1);
      await runMaintenance(app, app.logger, new AbortController().signal);
      expect(memory.list({ userKey: "owner" }).map((entry) => entry.text)).toEqual(["The user prefers tea."]);
    } finally {
      app.close();
    }
  });
});

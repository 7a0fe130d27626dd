import { describe, expect, it } from "vitest";
import { createApp } from "../../src/app/container.js";
import { ScriptedModel } from "../fakes/scripted-model.js";
import { allowEverything } from "../helpers/agent-harness.js";
import { factExtraction } from "../helpers/memory-facts.js";
import { oneAttemptHome, scriptedProviderEnv } from "../helpers/scripted-app.js";

describe("forgetting a memory that was superseded", () => {
  it("erases the old fact's turn but keeps the newer fact's turn and words (its history pointed at them)", async () => {
    const home = oneAttemptHome("mercury-forget-superseded-");
    const model = new ScriptedModel([
      { text: "Noted." },
      { text: factExtraction("The user lives in Paris.", "I live in Paris", "normal") },
      { text: "Noted." },
      { text: factExtraction("The user moved to Berlin.", "I moved to Berlin last month", "normal") },
    ]);
    const app = createApp({
      env: scriptedProviderEnv(home),
      modelFactory: () => model,
      extractAfterTasks: true,
    });
    const run = (input: string) =>
      app.agent.run({
        userKey: "owner",
        channel: "test",
        input,
        cwd: home,
        signal: new AbortController().signal,
        authorizerFor: () => allowEverything,
        askUser: async () => "",
      });
    try {
      const memory = app.memory;
      if (!memory) throw new Error("memory is configured in this home");
      await run("Just so you know, I live in Paris");
      await app.drain(10_000);
      await run("I moved to Berlin last month");
      await app.drain(10_000);
      const all = memory.list({ userKey: "owner", includeSuperseded: true });
      const paris = all.find((entry) => entry.text.includes("Paris"));
      const berlin = all.find((entry) => entry.text.includes("Berlin"));
      expect(paris?.supersededBy).toBe(berlin?.id);
      if (!paris || !berlin) throw new Error("both memories are stored");
      memory.forget(paris.id, "owner");
      const turns = (
        app.database.prepare("SELECT content FROM messages ORDER BY id").all() as { content: string }[]
      ).map((row) => row.content);
      const text = turns.join("\n");
      expect(text).not.toContain("Paris");
      // The newer fact's turn is not the forgotten fact's source: it stays as the user wrote it.
      expect(text).toContain("I moved to Berlin last month");
      expect(memory.list({ userKey: "owner" }).map((entry) => entry.text)).toEqual([
        "The user moved to Berlin.",
      ]);
    } finally {
      app.close();
    }
  });
});

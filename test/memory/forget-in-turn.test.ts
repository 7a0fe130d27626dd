import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { createApp } from "../../src/app/container.js";
import { ScriptedModel } from "../fakes/scripted-model.js";
import { allowEverything } from "../helpers/agent-harness.js";
import { factExtraction, filesUnder, noMemories } from "../helpers/memory-facts.js";
import { oneAttemptHome, scriptedProviderEnv } from "../helpers/scripted-app.js";

const secret = "zebraquartz";

describe("forgetting through the memory_forget tool, in the middle of a task", () => {
  it("the task's later steps, its extraction and every file under MERCURY_HOME no longer carry the fact", async () => {
    const home = oneAttemptHome("mercury-forget-turn-");
    const extraction = factExtraction(
      `The user's locker code word is ${secret}.`,
      `my locker code word is ${secret}`,
    );
    const model = new ScriptedModel([
      { text: "Noted." },
      { text: extraction },
      // The forget task: the model looks the memory up (its text comes back as a tool result),
      // then forgets it; the person confirms; then it answers and extraction runs.
      { toolCalls: [{ name: "memory_search", input: { query: "locker code word" } }] },
      { toolCalls: [{ name: "memory_forget", input: { memoryId: 1 } }] },
      { text: "Done." },
      { text: noMemories },
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
        askUser: async () => "Forget it",
      });
    try {
      await run(`Please remember: my locker code word is ${secret}`);
      await app.drain(10_000);
      expect(app.memory?.list({ userKey: "owner" }).map((memory) => memory.text)).toEqual([
        `The user's locker code word is ${secret}.`,
      ]);
      const before = model.requests.length;
      const report = await run("please forget my locker code word");
      await app.drain(10_000);
      expect(report.outcome).toBe("responded");
      expect(app.memory?.list({ userKey: "owner" })).toEqual([]);
      // Request before+0 chose memory_search, +1 memory_forget; +2 (the answer) and +3 (extraction)
      // came after the forget.
      const later = model.requests.slice(before + 2).map((request) => JSON.stringify(request.prompt));
      expect(later).toHaveLength(2);
      for (const prompt of later) expect(prompt.toLowerCase()).not.toContain(secret);
      expect(JSON.stringify(model.requests[before + 1]?.prompt).toLowerCase()).toContain(secret);
    } finally {
      app.close();
    }
    const holding = filesUnder(home).filter((path) =>
      readFileSync(path).toString("utf8").toLowerCase().includes(secret),
    );
    expect(holding).toEqual([]);
  });
});

import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { createApp } from "../../src/app/container.js";
import { ScriptedModel } from "../fakes/scripted-model.js";
import { allowEverything } from "../helpers/agent-harness.js";

function filesUnder(directory: string): string[] {
  return readdirSync(directory).flatMap((name) => {
    const path = join(directory, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

const secret = "zebraquartz";

describe("forgetting through the memory_forget tool, in the middle of a task", () => {
  it("the task's later steps, its extraction and every file under MERCURY_HOME no longer carry the fact", async () => {
    const home = mkdtempSync(join(tmpdir(), "mercury-forget-turn-"));
    writeFileSync(join(home, "config.yaml"), "retry:\n  attempts: 1\n  baseDelayMs: 1\n  maxDelayMs: 1\n");
    const extraction = JSON.stringify({
      memories: [
        {
          kind: "fact",
          text: `The user's locker code word is ${secret}.`,
          evidence: "user-stated",
          importance: "high",
          sourceQuote: `my locker code word is ${secret}`,
        },
      ],
    });
    const model = new ScriptedModel([
      { text: "Noted." },
      { text: extraction },
      // The forget task: the model looks the memory up (its text comes back as a tool result),
      // then forgets it; the person confirms; then it answers and extraction runs.
      { toolCalls: [{ name: "memory_search", input: { query: "locker code word" } }] },
      { toolCalls: [{ name: "memory_forget", input: { memoryId: 1 } }] },
      { text: "Done." },
      { text: '{"memories":[]}' },
    ]);
    const app = createApp({
      env: {
        MERCURY_HOME: home,
        MERCURY_PROVIDER: "openai-compatible",
        MERCURY_BASE_URL: "http://127.0.0.1:9/v1",
        MERCURY_MODEL: "m",
      },
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

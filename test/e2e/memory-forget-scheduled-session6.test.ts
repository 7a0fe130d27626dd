import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { fastRetryWithExtraction, makeHome, providerEnv, runChat, runCli } from "../helpers/cli.js";
import { useFakeServers } from "../helpers/fake-servers.js";
import { factExtraction, filesUnder, noMemories } from "../helpers/memory-facts.js";

const server = useFakeServers();
const secret = "zebraquartz";

/** Files under `home` holding `word` in any case, as UTF-8 or as JSON's \uXXXX escapes. */
function holding(home: string, word: string): string[] {
  const escaped = [...word].map((char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`).join("");
  return filesUnder(home).filter((path) => {
    const text = readFileSync(path).toString("utf8").toLowerCase();
    return text.includes(word) || text.includes(escaped);
  });
}

describe("forget reaches the runs of a job scheduled in the fact's conversation", () => {
  it("a run that said only the value (its own task and session) loses it too", {
    timeout: 240_000,
  }, async () => {
    const { home, userHome, workspace } = makeHome(fastRetryWithExtraction);
    const fake = await server({
      replies: [
        {
          toolCalls: [
            {
              name: "schedule_task",
              input: {
                schedule: "every 60 minutes",
                task: `Say ${secret.toUpperCase()} to me.`,
                name: "reminder",
              },
            },
          ],
        },
        { text: "Scheduled." },
        {
          text: factExtraction(
            `The user's locker code word is ${secret}.`,
            `my locker code word is ${secret}`,
          ),
        },
        // The run, started by hand: it answers with the value alone; its extraction finds nothing.
        { text: secret.toUpperCase() },
        { text: noMemories },
      ],
    });
    const env = providerEnv(fake.url);
    const chat = await runChat(
      ["chat", "--new"],
      { home, userHome, workspace },
      env,
      `my locker code word is ${secret}; remind me of it every hour\nyes\n`,
    );
    expect(chat.code, chat.stderr).toBe(0);
    const jobs = JSON.parse(
      (await runCli(["schedule", "list", "--json"], { home, userHome, env })).stdout,
    ) as {
      jobs: { id: string }[];
    };
    const job = jobs.jobs[0];
    if (!job) throw new Error("the chat scheduled a job");
    const ran = await runCli(["schedule", "run-now", job.id], { home, userHome, cwd: workspace, env });
    expect(ran.code, ran.stderr).toBe(0);
    const listed = JSON.parse(
      (await runCli(["memory", "list", "--json"], { home, userHome, env })).stdout,
    ) as {
      memories: { id: number; text: string }[];
    };
    const memory = listed.memories.find((entry) => entry.text.includes(secret));
    if (!memory) throw new Error("the fact was remembered");
    const forgotten = await runCli(["memory", "forget", String(memory.id)], { home, userHome, env });
    expect(forgotten.code, forgotten.stderr).toBe(0);
    expect(holding(home, secret)).toEqual([]);
    const history = await runCli(["schedule", "history", job.id], { home, userHome, env });
    expect(history.stdout.toLowerCase()).not.toContain(secret);
  });
});

import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { fastRetryWithExtraction, makeHome, providerEnv, runChat, runCli } from "../helpers/cli.js";
import { useFakeServers } from "../helpers/fake-servers.js";
import { factExtraction, filesUnder, noMemories } from "../helpers/memory-facts.js";

const server = useFakeServers();

/** Files under `home` holding `word` in any case, as UTF-8 or as JSON's \uXXXX escapes. */
function holding(home: string, word: string): string[] {
  const escaped = [...word].map((char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`).join("");
  return filesUnder(home).filter((path) => {
    const text = readFileSync(path).toString("utf8").toLowerCase();
    return text.includes(word.toLowerCase()) || text.includes(escaped);
  });
}

const secret = "zebraquartz";
const extraction = (quote: string) => factExtraction(`The user's locker code word is ${secret}.`, quote);

async function memoryId(home: string, userHome: string, env: Record<string, string>): Promise<number> {
  const listed = await runCli(["memory", "list", "--json"], { home, userHome, env });
  const memories = (JSON.parse(listed.stdout) as { memories: { id: number; text: string }[] }).memories;
  const memory = memories.find((entry) => entry.text.includes(secret));
  if (!memory) throw new Error(`no memory holds ${secret}: ${listed.stdout}`);
  return memory.id;
}

describe("forget erases every copy of the fact, however it was repeated", () => {
  it("a tool result, the reply, other casing and spacing, a split turn and a tool argument: gone everywhere", {
    timeout: 240_000,
  }, async () => {
    const { home, userHome, workspace } = makeHome(fastRetryWithExtraction);
    writeFileSync(join(workspace, "notes.txt"), `LOCKER CODE WORD:   ZebraQuartz\nshoe size: 42\n`);
    const fake = await server({
      replies: [
        // Turn 1: the model reads the notes, whose line repeats the fact in other casing and spacing.
        { toolCalls: [{ name: "read_file", input: { path: "notes.txt" } }] },
        { text: `Got it -- your LOCKER code word is "ZEBRAQUARTZ"!` },
        { text: extraction(`my locker code word is ${secret}`) },
        // Turn 2 and 3: the fact again, split across two turns.
        { text: "Go on." },
        { text: noMemories },
        { text: "Noted." },
        { text: noMemories },
        // Turn 4: the model writes it into a file through a tool argument (JSON-escaped in storage).
        {
          toolCalls: [
            {
              name: "write_file",
              rawArguments: `{"path":"memo.txt","content":"code word = ${[...secret].map((char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`).join("")}"}`,
            },
          ],
        },
        { text: "Saved the memo." },
        { text: noMemories },
        // The resumed chat after the forget.
        { text: "Anything else?" },
        { text: noMemories },
      ],
    });
    const env = providerEnv(fake.url);
    // One turn per run (each run waits for its extraction): the scripted replies stay in order.
    const turns = [
      `Please remember: my locker code word is ${secret}, and check notes.txt`,
      "The spare locker's word is",
      `${secret.toUpperCase()} as well`,
      "write the code word to memo.txt",
    ];
    for (const [index, turn] of turns.entries()) {
      const chat = await runChat(
        index === 0 ? ["chat", "--new"] : ["chat"],
        { home, userHome, workspace },
        env,
        `${turn}\n`,
      );
      expect(chat.code, chat.stderr).toBe(0);
    }
    const id = await memoryId(home, userHome, env);
    // An export the user kept under MERCURY_HOME.
    const exported = await runCli(["memory", "export"], { home, userHome, env });
    mkdirSync(join(home, "exports"));
    writeFileSync(join(home, "exports", "memories.jsonl"), exported.stdout);
    expect(holding(home, secret)).toContain(join(home, "exports", "memories.jsonl"));

    const forgotten = await runCli(["memory", "forget", String(id)], { home, userHome, env });
    expect(forgotten.code, forgotten.stderr).toBe(0);
    expect(holding(home, secret)).toEqual([]);

    const resumed = await runCli(["chat"], { home, userHome, cwd: workspace, env, input: "what else?\n" });
    expect(resumed.code, resumed.stderr).toBe(0);
    const sent = JSON.stringify(fake.chatRequests().at(-2)?.body).toLowerCase();
    expect(sent).toContain("what else?");
    expect(sent).not.toContain(secret);
    expect(holding(home, secret)).toEqual([]);
    // The conversation keeps its shape and its other words: only the fact's words went.
    expect(sent).toContain("the spare [forgotten]");
    expect(sent).toContain("to memo.txt");
  });

  it("a sub-agent handed only the value (one word of the fact) forgets it too: its session is the fact's", {
    timeout: 240_000,
  }, async () => {
    const { home, userHome, workspace } = makeHome(fastRetryWithExtraction);
    const fake = await server({
      replies: [
        {
          toolCalls: [
            { name: "delegate_task", input: { task: `Say the word ${secret.toUpperCase()} back.` } },
          ],
        },
        { text: `${secret.toUpperCase()}` },
        { text: "Your helper said it back." },
        { text: extraction(`my locker code word is ${secret}`) },
        { text: "Anything else?" },
        { text: noMemories },
      ],
    });
    const env = providerEnv(fake.url);
    const chat = await runChat(
      ["chat", "--new"],
      { home, userHome, workspace },
      env,
      `my locker code word is ${secret}; have a helper repeat it\n`,
    );
    expect(chat.code, chat.stderr).toBe(0);
    expect(chat.stdout + chat.stderr).toContain("delegate_task");
    const id = await memoryId(home, userHome, env);
    const forgotten = await runCli(["memory", "forget", String(id)], { home, userHome, env });
    expect(forgotten.code, forgotten.stderr).toBe(0);
    expect(holding(home, secret)).toEqual([]);
    const resumed = await runCli(["chat"], { home, userHome, cwd: workspace, env, input: "what else?\n" });
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(JSON.stringify(fake.chatRequests().at(-2)?.body).toLowerCase()).not.toContain(secret);
  });

  it("forgetting through the chat's memory_forget tool: the answer after it and the next chat never carry the fact", {
    timeout: 240_000,
  }, async () => {
    const { home, userHome, workspace } = makeHome(fastRetryWithExtraction);
    const fake = await server({
      replies: [
        { text: "Noted." },
        { text: extraction(`my locker code word is ${secret}`) },
        // The forget turn: the model finds the memory (its text comes back in the tool result), then
        // forgets it; the person confirms on the next piped line.
        { toolCalls: [{ name: "memory_search", input: { query: "locker code word" } }] },
        { toolCalls: [{ name: "memory_forget", input: { memoryId: 1 } }] },
        { text: "Done: I forgot your locker code word." },
        { text: noMemories },
        { text: "Anything else?" },
        { text: noMemories },
      ],
    });
    const env = providerEnv(fake.url);
    const first = await runChat(
      ["chat", "--new"],
      { home, userHome, workspace },
      env,
      `Please remember: my locker code word is ${secret}\n`,
    );
    expect(first.code, first.stderr).toBe(0);
    expect(await memoryId(home, userHome, env)).toBe(1);
    const before = fake.chatRequests().length;
    const forget = await runChat(
      ["chat"],
      { home, userHome, workspace },
      env,
      "please forget my locker code word\nForget it\n",
    );
    expect(forget.code, `${forget.stdout}\n${forget.stderr}`).toBe(0);
    expect(forget.stdout + forget.stderr).toContain("Forgotten: memory #1");
    const listed = await runCli(["memory", "list", "--json"], { home, userHome, env });
    expect(listed.stdout).not.toContain(secret);
    expect(holding(home, secret)).toEqual([]);
    // Requests before+2 (the answer) and before+3 (extraction) came after the forget.
    const after = fake.chatRequests().slice(before + 2);
    expect(after.length).toBeGreaterThanOrEqual(2);
    for (const request of after) expect(JSON.stringify(request.body).toLowerCase()).not.toContain(secret);
    const resumed = await runCli(["chat"], { home, userHome, cwd: workspace, env, input: "what else?\n" });
    expect(resumed.code, resumed.stderr).toBe(0);
    const sent = JSON.stringify(fake.chatRequests().at(-2)?.body).toLowerCase();
    expect(sent).toContain("what else?");
    expect(sent).not.toContain(secret);
    expect(holding(home, secret)).toEqual([]);
  });

  it("a scheduled job made in the fact's conversation loses the value, even said alone", {
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
        { text: extraction(`my locker code word is ${secret}`) },
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
    const jobs = await runCli(["schedule", "list", "--json"], { home, userHome, env });
    expect(jobs.stdout.toLowerCase()).toContain(secret);
    const id = await memoryId(home, userHome, env);
    const forgotten = await runCli(["memory", "forget", String(id)], { home, userHome, env });
    expect(forgotten.code, forgotten.stderr).toBe(0);
    expect(holding(home, secret)).toEqual([]);
    const after = await runCli(["schedule", "list", "--json"], { home, userHome, env });
    expect(after.code, after.stderr).toBe(0);
    expect(after.stdout.toLowerCase()).not.toContain(secret);
  });
});

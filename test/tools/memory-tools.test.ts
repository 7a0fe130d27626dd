import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createMemoryForgetTool } from "../../src/tools/memory-forget.js";
import { createMemorySaveTool } from "../../src/tools/memory-save.js";
import { createMemorySearchTool } from "../../src/tools/memory-search.js";
import { dumpAllTables, type Harness, makeHarness } from "../memory/store/harness.js";
import { fakeContext, type TempDirs, tempDirs } from "./helpers.js";

let dirs: TempDirs;
let harness: Harness;
beforeEach(async () => {
  dirs = await tempDirs();
  harness = makeHarness();
});
afterEach(async () => {
  await dirs.cleanup();
});

function say(text: string, userKey = "owner", sessionId = "session-test") {
  harness.service.recordEpisode({
    userKey,
    sessionId,
    role: "user",
    text,
    createdAt: harness.clock.now().toISOString(),
  });
}

describe("memory_save", () => {
  it("records user-stated only when the quote is in the person's latest messages", async () => {
    const tool = createMemorySaveTool(harness.service);
    say("By the way, I am allergic to shellfish.");
    const stated = await tool.execute(
      {
        text: "The user is allergic to shellfish",
        kind: "constraint",
        importance: "critical",
        sourceQuote: "I am allergic to shellfish",
      },
      fakeContext(dirs),
    );
    expect(stated).toEqual({
      ok: true,
      output: expect.stringMatching(
        /^Remembered #\d+: The user is allergic to shellfish \[evidence: user-stated/,
      ),
    });
    const invented = await tool.execute(
      { text: "The user hates opera", kind: "preference", importance: "low", sourceQuote: "I hate opera" },
      fakeContext(dirs),
    );
    expect(invented.ok && invented.output).toMatch(
      /inferred \(the quote is not their own plain claim of this in their recent messages\)/,
    );
    const memories = harness.service.list({ userKey: "owner" });
    expect(memories.map((memory) => [memory.text, memory.evidence, memory.sourceSessionId])).toEqual([
      ["The user is allergic to shellfish", "user-stated", "session-test"],
      ["The user hates opera", "inferred", "session-test"],
    ]);
    expect(harness.receipts.map((receipt) => receipt.text)).toEqual([
      "Remembered: The user is allergic to shellfish",
      "Remembered: The user hates opera",
    ]);
  });

  it("finds the quote in the transcript's provider-message JSON too", async () => {
    const at = harness.clock.now().toISOString();
    harness.database
      .prepare("INSERT INTO sessions (id, user_key, channel, created_at, updated_at) VALUES (?, ?, ?, ?, ?)")
      .run("session-test", "owner", "cli", at, at);
    harness.database
      .prepare(
        "INSERT INTO messages (session_id, role, content, token_estimate, created_at) VALUES (?, ?, ?, ?, ?)",
      )
      .run(
        "session-test",
        "user",
        JSON.stringify({ role: "user", content: [{ type: "text", text: "My  Birthday is on MAY 3rd" }] }),
        9,
        at,
      );
    const tool = createMemorySaveTool(harness.service);
    const result = await tool.execute(
      {
        text: "The user's birthday is May 3",
        kind: "fact",
        importance: "high",
        sourceQuote: "my birthday is on may 3rd",
      },
      fakeContext(dirs),
    );
    expect(result.ok && result.output).toMatch(/user-stated/);
  });

  it("does not take a question, a hypothetical or a dropped negation in the person's words as their claim", async () => {
    const tool = createMemorySaveTool(harness.service);
    say("Should I move to Berlin next year?");
    say("Imagine I was a licensed airline pilot, what would I earn?");
    say("I am not allergic to peanuts, the test was negative.");
    const attempts = [
      { text: "The user is moving to Berlin next year", sourceQuote: "move to Berlin next year" },
      { text: "The user is a licensed airline pilot", sourceQuote: "I was a licensed airline pilot" },
      { text: "The user is allergic to peanuts", sourceQuote: "allergic to peanuts, the test" },
    ];
    for (const attempt of attempts) {
      const result = await tool.execute(
        { ...attempt, kind: "fact", importance: "critical" },
        fakeContext(dirs),
      );
      expect(result.ok && result.output).toMatch(/\[evidence: inferred/);
    }
    expect(
      harness.service.list({ userKey: "owner" }).map((memory) => [memory.evidence, memory.importance]),
    ).toEqual([
      ["inferred", "normal"],
      ["inferred", "normal"],
      ["inferred", "normal"],
    ]);
  });

  it("does not accept another person's words as the task owner's", async () => {
    const tool = createMemorySaveTool(harness.service);
    say("I am a pilot", "telegram:77");
    const result = await tool.execute(
      { text: "The user is a pilot", kind: "fact", importance: "normal", sourceQuote: "I am a pilot" },
      fakeContext(dirs),
    );
    expect(result.ok && result.output).toMatch(/inferred/);
  });

  it("saves into the task owner's scope, never the owner's when a member is speaking", async () => {
    const tool = createMemorySaveTool(harness.service);
    await tool.execute(
      { text: "Likes rock climbing", kind: "preference", importance: "normal" },
      fakeContext(dirs, "allow", { userKey: "telegram:123" }),
    );
    expect(harness.service.list({ userKey: "owner" })).toEqual([]);
    expect(harness.service.list({ userKey: "telegram:123" })).toHaveLength(1);
  });

  it("rejects input with invented fields", () => {
    const tool = createMemorySaveTool(harness.service);
    expect(
      tool.inputSchema.safeParse({
        text: "Likes tea",
        kind: "preference",
        importance: "low",
        confidence: 0.9,
      }).success,
    ).toBe(false);
  });
});

describe("memory_search", () => {
  it("returns the task owner's memories only, with evidence and confidence, and marks them used", async () => {
    await harness.service.remember({
      userKey: "owner",
      text: "My sister lives in Oslo",
      kind: "relationship",
      importance: "normal",
      evidence: "user-stated",
    });
    await harness.service.remember({
      userKey: "telegram:1",
      text: "My sister lives in Rome",
      kind: "relationship",
      importance: "normal",
      evidence: "user-stated",
    });
    say("We should visit my sister in Oslo next spring");
    const tool = createMemorySearchTool(harness.service);
    const result = await tool.execute(
      { query: "where does my sister live?", includeConversations: true },
      fakeContext(dirs),
    );
    if (!result.ok) throw new Error(result.error);
    expect(result.output).toMatch(
      /^#\d+ \[relationship\] My sister lives in Oslo \(user-stated, confidence 0\.88, active\)/,
    );
    expect(result.output).toContain("conversation session-test");
    expect(result.output).not.toContain("Rome");
    expect(harness.service.list({ userKey: "owner" })[0]?.lastUsedAt).not.toBeNull();
    const none = await tool.execute({ query: "quantum chromodynamics" }, fakeContext(dirs));
    expect(none).toEqual({ ok: true, output: 'No memories match "quantum chromodynamics".' });
  });
});

describe("memory_forget", () => {
  async function seed() {
    return (
      await harness.service.remember({
        userKey: "owner",
        text: "My PIN hint is walrusbanjo",
        kind: "fact",
        importance: "high",
        evidence: "user-stated",
      })
    ).memory.id;
  }

  it("refuses without a way to ask the person", async () => {
    const id = await seed();
    const result = await createMemoryForgetTool(harness.service).execute({ memoryId: id }, fakeContext(dirs));
    expect(result).toEqual({
      ok: false,
      error: expect.stringMatching(/^Refused: deleting a memory needs the person's confirmation/),
    });
    expect(harness.service.list({ userKey: "owner" })).toHaveLength(1);
  });

  it("keeps the memory when the person says no", async () => {
    const id = await seed();
    const questions: string[] = [];
    const result = await createMemoryForgetTool(harness.service).execute(
      { memoryId: id },
      fakeContext(dirs, "allow", {
        askUser: async (question) => {
          questions.push(question);
          return "Keep it";
        },
      }),
    );
    expect(questions).toEqual([`Forget memory #${id} for good: "My PIN hint is walrusbanjo"?`]);
    expect(result.ok && result.output).toMatch(/^Kept memory/);
    expect(harness.service.list({ userKey: "owner" })).toHaveLength(1);
  });

  it("deletes every trace when the person confirms", async () => {
    const id = await seed();
    const result = await createMemoryForgetTool(harness.service).execute(
      { memoryId: id },
      fakeContext(dirs, "allow", { askUser: async () => "Forget it" }),
    );
    expect(result).toEqual({ ok: true, output: `Forgotten: memory #${id} and its history were deleted.` });
    expect(dumpAllTables(harness.database)).not.toContain("walrusbanjo");
  });

  it("cannot touch another person's memory", async () => {
    const id = await seed();
    const result = await createMemoryForgetTool(harness.service).execute(
      { memoryId: id },
      fakeContext(dirs, "allow", { userKey: "telegram:5", askUser: async () => "Forget it" }),
    );
    expect(result).toEqual({
      ok: false,
      error: expect.stringMatching(/No memory #\d+ for user "telegram:5"/),
    });
    expect(harness.service.list({ userKey: "owner" })).toHaveLength(1);
  });
});

describe("memory_forget tells the person what it could not erase", () => {
  it("names the user's workspace files and the copies Mercury cannot rewrite, on a database on disk", async () => {
    const { mkdirSync, writeFileSync, readFileSync } = await import("node:fs");
    const { join } = await import("node:path");
    const { openDatabase } = await import("../../src/storage/database.js");
    const { SearchIndex } = await import("../../src/memory/search/search-index.js");
    const { MemoryService } = await import("../../src/memory/service.js");
    const home = join(dirs.root, "mercury-home");
    mkdirSync(join(home, "workspace"), { recursive: true });
    const database = openDatabase(join(home, "mercury.db"));
    try {
      const service = new MemoryService({ database, index: new SearchIndex(database), clock: harness.clock });
      const { memory } = await service.remember({
        userKey: "owner",
        text: "My PIN hint is walrusbanjo",
        kind: "fact",
        importance: "high",
        evidence: "user-stated",
      });
      const notes = join(home, "workspace", "notes.txt");
      writeFileSync(notes, "PIN hint is walrusbanjo\n");
      // A copy of a database the user made: Mercury does not manage it, so it cannot rewrite it.
      const copy = join(home, "my-copy.sqlite");
      writeFileSync(
        copy,
        Buffer.concat([Buffer.from("SQLite format 3\0"), Buffer.from("PIN hint is walrusbanjo")]),
      );
      const result = await createMemoryForgetTool(service).execute(
        { memoryId: memory.id },
        fakeContext(dirs, "allow", { askUser: async () => "Forget it" }),
      );
      expect(result.ok).toBe(true);
      const output = result.ok ? result.output : "";
      expect(output).toMatch(new RegExp(`^Forgotten: memory #${memory.id}`));
      expect(output).toContain("your own files in the workspace still contain it");
      expect(output).toContain(notes);
      expect(output).toContain("Mercury cannot rewrite them");
      expect(output).toContain(copy);
      expect(readFileSync(notes, "utf8")).toBe("PIN hint is walrusbanjo\n");
    } finally {
      database.close();
    }
  });
});

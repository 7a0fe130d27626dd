import { describe, expect, it } from "vitest";
import { fastRetryWithExtraction, makeHome, providerEnv, runChat, runCli } from "../helpers/cli.js";
import { useFakeServers } from "../helpers/fake-servers.js";

const server = useFakeServers();

interface Listed {
  memories: { id: number; text: string; evidence: string; importance: string; supersededAt: string | null }[];
}

describe("held-out classes through the built binary", () => {
  it("memory add: a question, another subject and another count neither supersede nor confirm", async () => {
    const { home, userHome } = makeHome();
    const add = async (text: string) => {
      const result = await runCli(["memory", "add", "--json", text], { home, userHome });
      expect(result.code, result.stderr).toBe(0);
      return (JSON.parse(result.stdout) as { action: string }).action;
    };
    expect(await add("I live in Paris")).toBe("created");
    expect(await add("What if I moved to Berlin?")).toBe("created");
    expect(await add("Tom is 34")).toBe("created");
    expect(await add("I am 34")).toBe("created");
    expect(await add("My dog sleeps in the kitchen")).toBe("created");
    expect(await add("My dogs sleep in the kitchen")).toBe("created");
    const listed = JSON.parse(
      (await runCli(["memory", "list", "--json"], { home, userHome })).stdout,
    ) as Listed;
    expect(listed.memories.map((memory) => memory.text).sort()).toEqual(
      [
        "I live in Paris",
        "What if I moved to Berlin?",
        "Tom is 34",
        "I am 34",
        "My dog sleeps in the kitchen",
        "My dogs sleep in the kitchen",
      ].sort(),
    );
    // A plain move still is one.
    expect(await add("I moved to Lyon")).toBe("superseded");
  });

  it("chat: a pilot licence in a pasted code block is recorded as inferred, never user-stated or critical", async () => {
    const fake = await server({
      replies: [
        { text: "The fixture reads fine." },
        {
          text: JSON.stringify({
            memories: [
              {
                kind: "fact",
                text: "The user is a licensed airline pilot.",
                evidence: "user-stated",
                importance: "critical",
                sourceQuote: "I am a licensed airline pilot",
              },
            ],
          }),
        },
      ],
    });
    const { home, userHome, workspace } = makeHome(fastRetryWithExtraction);
    const env = providerEnv(fake.url);
    // The piped chat reads one line per turn: the fence is written on one line.
    const chat = await runChat(
      ["chat", "--new"],
      { home, userHome, workspace },
      env,
      "Can you check my test fixture? ``` I am a licensed airline pilot based in Lisbon. ```\n",
    );
    expect(chat.code, chat.stderr).toBe(0);
    const listed = JSON.parse(
      (await runCli(["memory", "list", "--json"], { home, userHome, env })).stdout,
    ) as Listed;
    expect(listed.memories).toHaveLength(1);
    expect(listed.memories[0]).toMatchObject({ evidence: "inferred", importance: "normal" });
  });
});

import { describe, expect, it } from "vitest";
import { fastRetryWithExtraction, makeHome, providerEnv, runChat, runCli } from "../helpers/cli.js";
import { useFakeServers } from "../helpers/fake-servers.js";
import { factExtraction, noMemories } from "../helpers/memory-facts.js";

const server = useFakeServers();
const secret = "zebraquartz";

describe("forget in the fact's own conversation erases the fact, not the rest of the chat", () => {
  it("another request in the same chat keeps its words ('code' is not the fact); the value said alone goes", {
    timeout: 240_000,
  }, async () => {
    const fake = await server({
      replies: [
        { text: "Noted." },
        {
          text: factExtraction(
            `The user's locker code word is ${secret}.`,
            `my locker code word is ${secret}`,
          ),
        },
        { text: `Sure. And ${secret.toUpperCase()} is noted.` },
        { text: noMemories },
        { text: "Here you go." },
        { text: noMemories },
      ],
    });
    const { home, userHome, workspace } = makeHome(fastRetryWithExtraction);
    const env = providerEnv(fake.url);
    // One turn per run (each run waits for its extraction): the scripted replies stay in order.
    for (const [index, turn] of [
      `my locker code word is ${secret}`,
      "can you write code for my website?",
    ].entries()) {
      const chat = await runChat(
        index === 0 ? ["chat", "--new"] : ["chat"],
        { home, userHome, workspace },
        env,
        `${turn}\n`,
      );
      expect(chat.code, chat.stderr).toBe(0);
    }
    const listed = JSON.parse(
      (await runCli(["memory", "list", "--json"], { home, userHome, env })).stdout,
    ) as {
      memories: { id: number; text: string }[];
    };
    const memory = listed.memories.find((entry) => entry.text.includes(secret));
    if (!memory) throw new Error("the fact was remembered");
    const forgotten = await runCli(["memory", "forget", String(memory.id)], { home, userHome, env });
    expect(forgotten.code, forgotten.stderr).toBe(0);
    const resumed = await runCli(["chat"], { home, userHome, cwd: workspace, env, input: "thanks\n" });
    expect(resumed.code, resumed.stderr).toBe(0);
    const request = fake.chatRequests().at(-2)?.body as { messages: unknown[] };
    const sent = JSON.stringify(request.messages);
    expect(sent).toContain("thanks");
    expect(sent).toContain("can you write code for my website?");
    expect(sent.toLowerCase()).not.toContain(secret);
  });
});

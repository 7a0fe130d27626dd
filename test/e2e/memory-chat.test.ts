import { describe, expect, it } from "vitest";
import { fastRetryWithExtraction, makeHome, providerEnv, runChat, runCli } from "../helpers/cli.js";
import { useFakeServers } from "../helpers/fake-servers.js";
import { factExtraction, noMemories } from "../helpers/memory-facts.js";

const server = useFakeServers();

describe("memory through the built binary", () => {
  it("extracts a fact stated in chat, shows a receipt, and recalls it in a new session's system prompt", async () => {
    const extraction = factExtraction(
      "The user's dog is called Biscuit.",
      "my dog is called Biscuit",
      "normal",
    );
    const fake = await server({
      replies: [
        { text: "What a lovely name!" },
        { text: extraction },
        { text: "Your dog is Biscuit." },
        { text: noMemories },
      ],
    });
    const { home, userHome, workspace } = makeHome(fastRetryWithExtraction);
    const env = providerEnv(fake.url);
    const first = await runChat(
      ["chat", "--new"],
      { home, userHome, workspace },
      env,
      "my dog is called Biscuit\n",
    );
    expect(first.code).toBe(0);
    expect(first.stderr).toContain("Remembered: The user's dog is called Biscuit.");

    const listed = await runCli(["memory", "list", "--json"], { home, userHome, env });
    const memories = JSON.parse(listed.stdout).memories as { text: string; evidence: string }[];
    expect(memories).toEqual([
      expect.objectContaining({ text: "The user's dog is called Biscuit.", evidence: "user-stated" }),
    ]);

    const second = await runChat(
      ["chat", "--new"],
      { home, userHome, workspace },
      env,
      "what is my dog called?\n",
    );
    expect(second.stdout).toContain("Your dog is Biscuit.");
    const third = fake.chatRequests()[2]?.body as
      | { messages: { role: string; content: string }[] }
      | undefined;
    const system = third?.messages[0];
    expect(system?.role).toBe("system");
    expect(system?.content).toContain("The user's dog is called Biscuit.");
    // The new session carries no old messages: the fact came from memory, not from the transcript.
    expect(third?.messages).toHaveLength(2);
  });
});

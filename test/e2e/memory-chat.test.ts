import { describe, expect, it } from "vitest";
import { fastRetryWithExtraction, makeHome, providerEnv, runCli } from "../helpers/cli.js";
import { useFakeServers } from "../helpers/fake-servers.js";

const server = useFakeServers();

describe("memory through the built binary", () => {
  it("extracts a fact stated in chat, shows a receipt, and recalls it in a new session's system prompt", async () => {
    const extraction = JSON.stringify({
      memories: [
        {
          kind: "fact",
          text: "The user's dog is called Biscuit.",
          evidence: "user-stated",
          importance: "normal",
          sourceQuote: "my dog is called Biscuit",
        },
      ],
    });
    const fake = await server({
      replies: [
        { text: "What a lovely name!" },
        { text: extraction },
        { text: "Your dog is Biscuit." },
        { text: '{"memories":[]}' },
      ],
    });
    const { home, userHome, workspace } = makeHome(fastRetryWithExtraction);
    const env = providerEnv(fake.url);
    const first = await runCli(["chat", "--new"], {
      home,
      userHome,
      cwd: workspace,
      env,
      input: "my dog is called Biscuit\n",
    });
    expect(first.code).toBe(0);
    expect(first.stderr).toContain("Remembered: The user's dog is called Biscuit.");

    const listed = await runCli(["memory", "list", "--json"], { home, userHome, env });
    const memories = JSON.parse(listed.stdout).memories as { text: string; evidence: string }[];
    expect(memories).toEqual([
      expect.objectContaining({ text: "The user's dog is called Biscuit.", evidence: "user-stated" }),
    ]);

    const second = await runCli(["chat", "--new"], {
      home,
      userHome,
      cwd: workspace,
      env,
      input: "what is my dog called?\n",
    });
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

import { describe, expect, it } from "vitest";
import { fastRetryWithExtraction, makeHome, providerEnv, runChat, runCli } from "../helpers/cli.js";
import { useFakeServers } from "../helpers/fake-servers.js";

const server = useFakeServers();

describe("an update said in chat with no word in common with the stored fact", () => {
  it("'I moved to Berlin last month' supersedes 'I live in Paris' through the judge; the next prompt holds Berlin", {
    timeout: 120_000,
  }, async () => {
    const extraction = JSON.stringify({
      memories: [
        {
          kind: "fact",
          text: "The user moved to Berlin last month",
          evidence: "user-stated",
          importance: "high",
          sourceQuote: "I moved to Berlin last month",
        },
      ],
    });
    const fake = await server({
      replies: [
        { text: "Congratulations on the move!" },
        { text: extraction },
        { text: '{"judgements":[{"id":1,"verdict":"update","reason":"moved"}]}' },
        { text: "You live in Berlin." },
        { text: '{"memories":[]}' },
      ],
    });
    const { home, userHome, workspace } = makeHome(fastRetryWithExtraction);
    const env = providerEnv(fake.url);
    expect((await runCli(["memory", "add", "I live in Paris"], { home, userHome, env })).code).toBe(0);
    const chat = await runChat(
      ["chat", "--new"],
      { home, userHome, workspace },
      env,
      "By the way, I moved to Berlin last month.\n",
    );
    expect(chat.code, chat.stderr).toBe(0);
    const listed = JSON.parse(
      (await runCli(["memory", "list", "--json"], { home, userHome, env })).stdout,
    ) as {
      memories: { text: string; evidence: string }[];
    };
    expect(listed.memories.map((memory) => [memory.text, memory.evidence])).toEqual([
      ["The user moved to Berlin last month", "user-stated"],
    ]);
    const asked = await runCli(["run", "Where do I live now?"], { home, userHome, cwd: workspace, env });
    expect(asked.code, asked.stderr).toBe(0);
    const request = fake
      .chatRequests()
      .find((entry) => JSON.stringify(entry.body).includes("Where do I live now?"))?.body as {
      messages: { role: string; content: unknown }[];
    };
    const system = JSON.stringify(request.messages.filter((message) => message.role === "system"));
    expect(system).toContain("Berlin");
    expect(system).not.toContain("I live in Paris");
  });
});

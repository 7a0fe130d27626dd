import { describe, expect, it } from "vitest";
import { fastRetryWithExtraction, makeHome, providerEnv, runChat, runCli } from "../helpers/cli.js";
import { useFakeServers } from "../helpers/fake-servers.js";

const server = useFakeServers();

describe("'she moved to Rome' after 'my sister Ana lives in Paris' (built binary, loopback model)", () => {
  it("the pair reaches the model judge and its update supersedes the sister's fact", {
    timeout: 120_000,
  }, async () => {
    const extraction = JSON.stringify({
      memories: [
        {
          kind: "fact",
          text: "She moved to Rome",
          evidence: "user-stated",
          importance: "normal",
          sourceQuote: "she moved to Rome last week",
        },
      ],
    });
    const fake = await server({
      replies: [
        { text: "Rome, lovely!" },
        { text: extraction },
        { text: '{"judgements":[{"id":1,"verdict":"update","reason":"she is the sister"}]}' },
      ],
    });
    const { home, userHome, workspace } = makeHome(fastRetryWithExtraction);
    const env = providerEnv(fake.url);
    expect(
      (await runCli(["memory", "add", "My sister Ana lives in Paris"], { home, userHome, env })).code,
    ).toBe(0);
    const chat = await runChat(
      ["chat", "--new"],
      { home, userHome, workspace },
      env,
      "Oh, and she moved to Rome last week.\n",
    );
    expect(chat.code, chat.stderr).toBe(0);
    const judged = fake
      .chatRequests()
      .some((entry) => JSON.stringify(entry.body).includes("[1] My sister Ana lives in Paris"));
    expect(judged).toBe(true);
    const listed = (await runCli(["memory", "list", "--all"], { home, userHome, env })).stdout;
    expect(listed).toContain("She moved to Rome");
    expect(listed).toMatch(/#1 \[fact\] My sister Ana lives in Paris .*superseded by #2/);
  });
});

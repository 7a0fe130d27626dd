import { describe, expect, it } from "vitest";
import { fastRetryWithExtraction, makeHome, providerEnv, runChat, runCli } from "../helpers/cli.js";
import { useFakeServers } from "../helpers/fake-servers.js";
import { factExtraction } from "../helpers/memory-facts.js";

const server = useFakeServers();

interface Listed {
  memories: {
    id: number;
    text: string;
    evidence: string;
    importance: string;
    confidence: number;
    supersededBy: number | null;
  }[];
}

describe("attribution through the built binary (chat with the loopback model)", () => {
  it("an assistant's line about the user is inferred and never supersedes what the user said; a one-word quote is not the user's", {
    timeout: 180_000,
  }, async () => {
    const claims = JSON.stringify({
      memories: [
        {
          kind: "fact",
          text: "The user lives in Madrid",
          evidence: "user-stated",
          importance: "critical",
          // The assistant's words, not the user's.
          sourceQuote: "Since you live in Madrid",
        },
        {
          kind: "fact",
          text: "The user is a licensed airline pilot",
          evidence: "user-stated",
          importance: "critical",
          // One word of the user's turn: a pronoun, not a statement of the fact.
          sourceQuote: "I",
        },
      ],
    });
    const fake = await server({
      replies: [
        // Turn 1: the user says where they live.
        { text: "Paris is lovely." },
        { text: factExtraction("The user lives in Paris", "I live in Paris", "normal") },
        // Turn 2: the assistant (wrongly) says Madrid; the extraction claims the user said it.
        { text: "Since you live in Madrid, try the Prado this weekend." },
        { text: claims },
        // A judge that calls Madrid an update of Paris: the inference must still not replace it.
        { text: '{"judgements":[{"id":1,"verdict":"update","reason":"scripted lie"}]}' },
        { text: '{"judgements":[]}' },
      ],
    });
    const { home, userHome, workspace } = makeHome(fastRetryWithExtraction);
    const env = providerEnv(fake.url);
    const first = await runChat(
      ["chat", "--new"],
      { home, userHome, workspace },
      env,
      "I live in Paris, near the canal.\n",
    );
    expect(first.code, first.stderr).toBe(0);
    const second = await runChat(
      ["chat"],
      { home, userHome, workspace },
      env,
      "I have a free weekend. Any museum tips?\n",
    );
    expect(second.code, second.stderr).toBe(0);

    const listed = JSON.parse(
      (await runCli(["memory", "list", "--json"], { home, userHome, env })).stdout,
    ) as Listed;
    const everything = JSON.parse(
      (await runCli(["memory", "list", "--all", "--json"], { home, userHome, env })).stdout,
    ) as Listed;
    const current = (text: string) => listed.memories.find((memory) => memory.text === text);
    const byText = (text: string) => everything.memories.find((memory) => memory.text === text);
    const paris = current("The user lives in Paris");
    const madrid = byText("The user lives in Madrid");
    const pilot = byText("The user is a licensed airline pilot");
    // Paris, which the user said, is still current and user-stated.
    expect(paris).toMatchObject({ evidence: "user-stated" });
    // The assistant's claim is recorded as an inference: lower confidence, importance capped.
    expect(madrid).toMatchObject({ evidence: "inferred", importance: "normal" });
    expect(madrid?.confidence ?? 1).toBeLessThan(paris?.confidence ?? 0);
    // Set aside against the user's own word (kept in history), never the other way round.
    expect(madrid?.supersededBy ?? null).not.toBe(null);
    expect(paris?.supersededBy ?? null).toBe(null);
    // A quote of "I" is no evidence that the user said it.
    expect(pilot).toMatchObject({ evidence: "inferred", importance: "normal" });
  });
});

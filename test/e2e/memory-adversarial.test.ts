import { describe, expect, it } from "vitest";
import { fastRetryWithExtraction, makeHome, providerEnv, runChat, runCli } from "../helpers/cli.js";
import { useFakeServers } from "../helpers/fake-servers.js";

const server = useFakeServers();

interface Listed {
  memories: { id: number; text: string }[];
}

/** Adds `stored` then `said` to a fresh home and returns the second add's action and what is current. */
async function pair(stored: string, said: string, env: Record<string, string> = {}) {
  const { home, userHome } = makeHome();
  const first = await runCli(["memory", "add", "--json", stored], { home, userHome, env });
  expect(first.code, first.stderr).toBe(0);
  const second = await runCli(["memory", "add", "--json", said], { home, userHome, env });
  expect(second.code, second.stderr).toBe(0);
  const listed = await runCli(["memory", "list", "--json"], { home, userHome, env });
  const current = (JSON.parse(listed.stdout) as Listed).memories.map((memory) => memory.text).sort();
  return { action: (JSON.parse(second.stdout) as { action: string }).action, current, home, userHome };
}

/** A model judge that answers `verdict` for every stored statement, whatever the truth. */
function lyingJudge(verdict: string) {
  return { text: JSON.stringify({ judgements: [{ id: 1, verdict, reason: "scripted lie" }] }) };
}

describe("adversarial consolidation through the built binary", () => {
  it("without a model, a stated change supersedes; the same words about someone else do not", {
    timeout: 120_000,
  }, async () => {
    const seats = await pair("I prefer window seats", "I changed my mind, I prefer aisle seats now");
    expect(seats.action).toBe("superseded");
    expect(seats.current).toEqual(["I changed my mind, I prefer aisle seats now"]);
    const all = await runCli(["memory", "list", "--all"], seats);
    expect(all.stdout).toContain("I prefer window seats");

    const moved = await pair("我住在上海", "我已经搬到杭州了");
    expect(moved.action).toBe("superseded");

    const other = await pair("My wife prefers aisle seats", "I changed my mind, I prefer window seats now");
    expect(other.action).toBe("created");
    expect(other.current).toHaveLength(2);

    const pronouns = await pair("She is a nurse", "He is a nurse");
    expect(pronouns.action).toBe("created");
    expect(pronouns.current).toEqual(["He is a nurse", "She is a nurse"]);
  });

  it("a lying model judge cannot supersede a negation or a number, nor confirm a correction", {
    timeout: 120_000,
  }, async () => {
    const fake = await server({
      replies: [lyingJudge("update"), lyingJudge("update"), lyingJudge("same")],
    });
    const env = providerEnv(fake.url);
    const negation = await pair("I like horror films", "I don't like horror films", env);
    expect(negation.action).toBe("conflict");
    expect(negation.current).toEqual(["I don't like horror films", "I like horror films"]);
    const conflicts = await runCli(["memory", "conflicts"], negation);
    expect(conflicts.stdout).toContain("I like horror films");

    const number = await pair("My daughter Zoe is 12", "My daughter Zoe is 14", env);
    expect(number.action).toBe("conflict");
    expect(number.current).toHaveLength(2);

    const correction = await pair("My locker number is B12", "Actually my locker number is B21", env);
    expect(correction.action).toBe("conflict");
    expect(correction.current).toEqual(["Actually my locker number is B21", "My locker number is B12"]);
    // Each second add asked the judge once: the lies were heard and refused, not skipped.
    expect(fake.chatRequests()).toHaveLength(3);
  });

  it("a change said in chat but dropped by the extraction's wording still supersedes, on the user's quote", {
    timeout: 120_000,
  }, async () => {
    const extraction = JSON.stringify({
      memories: [
        {
          kind: "preference",
          text: "The user prefers coffee",
          evidence: "user-stated",
          importance: "normal",
          sourceQuote: "I changed my mind, I prefer coffee now",
        },
      ],
    });
    const fake = await server({
      replies: [{ text: "Coffee it is." }, { text: extraction }, lyingJudge("update")],
    });
    const { home, userHome, workspace } = makeHome(fastRetryWithExtraction);
    const env = providerEnv(fake.url);
    expect((await runCli(["memory", "add", "I prefer tea"], { home, userHome, env })).code).toBe(0);
    const chat = await runChat(
      ["chat", "--new"],
      { home, userHome, workspace },
      env,
      "Oh, I changed my mind, I prefer coffee now.\n",
    );
    expect(chat.code, chat.stderr).toBe(0);
    const listed = await runCli(["memory", "list", "--json"], { home, userHome, env });
    expect((JSON.parse(listed.stdout) as Listed).memories.map((memory) => memory.text)).toEqual([
      "The user prefers coffee",
    ]);
    // The judge was asked (its "update" stood because the user's own words say the change).
    expect(fake.chatRequests()).toHaveLength(3);
  });
});

import { describe, expect, it } from "vitest";
import { fastRetryWithExtraction, makeHome, providerEnv, runChat, runCli } from "../helpers/cli.js";
import { useFakeServers } from "../helpers/fake-servers.js";

const server = useFakeServers();

interface ChatBody {
  messages: { role: string; content: unknown }[];
}

describe("memory integrity through the built binary", () => {
  it("the allergy reaches the antibiotic question through the profile; both sides of a conflict are shown", {
    timeout: 120_000,
  }, async () => {
    const fake = await server({
      replies: [{ text: "Ask your doctor; not penicillin." }, { text: '{"memories":[]}' }],
    });
    const { home, userHome, workspace } = makeHome(fastRetryWithExtraction);
    const env = providerEnv(fake.url);
    // Added without a model configured: the deterministic rules consolidate (no judge call).
    const add = (text: string, ...flags: string[]) =>
      runCli(["memory", "add", text, ...flags], { home, userHome, env: {} });
    expect((await add("I am allergic to penicillin", "--importance", "high")).code).toBe(0);
    await add("I prefer tea over coffee");
    const negated = await add("I do not prefer tea over coffee");
    expect(negated.stdout).toContain("in conflict with");
    const conflicts = await runCli(["memory", "conflicts"], { home, userHome, env });
    expect(conflicts.stdout).toContain("I prefer tea over coffee");
    expect(conflicts.stdout).toContain("I do not prefer tea over coffee");

    const search = await runCli(["memory", "search", "allergies", "--json"], { home, userHome, env });
    expect((JSON.parse(search.stdout) as { results: { text: string }[] }).results[0]?.text).toBe(
      "I am allergic to penicillin",
    );

    const chat = await runChat(
      ["chat", "--new"],
      { home, userHome, workspace },
      env,
      "Which antibiotic should I take for my infection?\n",
    );
    expect(chat.code).toBe(0);
    const body = fake.chatRequests()[0]?.body as ChatBody;
    const system = String(body.messages[0]?.content);
    expect(system).toContain("## Core facts about this person");
    expect(system).toContain("I am allergic to penicillin");
    expect(system).toContain('"I prefer tea over coffee"');
    expect(system).toContain('"I do not prefer tea over coffee"');
  });

  it("memory add keeps look-alike facts apart and flags a missed update without a model judge", {
    timeout: 120_000,
  }, async () => {
    const { home, userHome } = makeHome();
    const env = {};
    const add = async (text: string) => {
      const result = await runCli(["memory", "add", "--json", text], { home, userHome, env });
      expect(result.code).toBe(0);
      return (JSON.parse(result.stdout) as { action: string }).action;
    };
    expect(await add("My sister lives in Paris")).toBe("created");
    expect(await add("My brother lives in Paris")).toBe("created");
    expect(await add("My wife Anna likes sushi and ramen")).toBe("created");
    expect(await add("My wife Anna likes sushi")).toBe("created");
    expect(await add("The user lives in Berlin.")).toBe("created");
    // A one-value attribute's new value without a change word: flagged, both kept.
    expect(await add("The user lives in Rome.")).toBe("conflict");
    const ramen = await runCli(["memory", "search", "--json", "ramen"], { home, userHome, env });
    expect((JSON.parse(ramen.stdout) as { results: { text: string }[] }).results.map((r) => r.text)).toEqual([
      "My wife Anna likes sushi and ramen",
    ]);
    const listed = await runCli(["memory", "list", "--json"], { home, userHome, env });
    const memories = (JSON.parse(listed.stdout) as { memories: { id: number; text: string }[] }).memories;
    expect(memories).toHaveLength(6);
    const berlin = memories.find((memory) => memory.text.includes("Berlin"))?.id ?? 0;
    const rome = memories.find((memory) => memory.text.includes("Rome"))?.id ?? 0;

    // The user settles it; the old one is kept as history, believed before, not after.
    const resolved = await runCli(["memory", "resolve", String(rome), "--keep", String(rome)], {
      home,
      userHome,
      env,
    });
    expect(resolved.stdout).toContain(`Resolved: kept #${rome}; superseded #${berlin}`);
    const current = await runCli(["memory", "search", "--json", "user lives"], { home, userHome, env });
    const texts = (JSON.parse(current.stdout) as { results: { text: string }[] }).results.map((r) => r.text);
    expect(texts).toContain("The user lives in Rome.");
    expect(texts).not.toContain("The user lives in Berlin.");
    const past = await runCli(["memory", "list", "--as-of", "2000-01-01"], { home, userHome, env });
    expect(past.stdout).toContain("No memories");
    const why = await runCli(["memory", "why", String(berlin)], { home, userHome, env });
    expect(why.stdout).toMatch(/versions:\n.* created \(manual\): The user lives in Berlin\.\n.* superseded/);
    const bad = await runCli(["memory", "list", "--as-of", "yesterday"], { home, userHome, env });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--as-of must be a date");
  });
});

import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { fastRetryWithExtraction, makeHome, providerEnv, runChat, runCli } from "../helpers/cli.js";
import { useFakeServers } from "../helpers/fake-servers.js";
import { factExtraction, filesUnder, noMemories } from "../helpers/memory-facts.js";

const server = useFakeServers();

describe("memory forget through the built binary", () => {
  it("erases the fact from every file under MERCURY_HOME and from the next chat's request", async () => {
    const secret = "zebraquartz";
    const extraction = factExtraction(
      `The user's locker code word is ${secret}.`,
      `my locker code word is ${secret}`,
    );
    const fake = await server({
      replies: [
        { text: `Noted: your locker code word is ${secret}.` },
        { text: extraction },
        { text: "Sure, what else?" },
        { text: noMemories },
      ],
    });
    const { home, userHome, workspace } = makeHome(fastRetryWithExtraction);
    const env = providerEnv(fake.url);
    const first = await runChat(
      ["chat", "--new"],
      { home, userHome, workspace },
      env,
      `Please remember: my locker code word is ${secret}, thanks\n`,
    );
    expect(first.code).toBe(0);
    const listed = JSON.parse(
      (await runCli(["memory", "list", "--json"], { home, userHome, env })).stdout,
    ) as {
      memories: { id: number; text: string }[];
    };
    const memory = listed.memories.find((entry) => entry.text.includes(secret));
    expect(memory).toBeDefined();
    const before = filesUnder(home).filter((path) => readFileSync(path).toString("latin1").includes(secret));
    expect(before.length).toBeGreaterThan(0);

    const forgotten = await runCli(["memory", "forget", String(memory?.id)], { home, userHome, env });
    expect(forgotten.code).toBe(0);
    expect(forgotten.stdout).toContain(`Forgotten: memory #${memory?.id}`);

    // Nothing left anywhere: database, -wal, -shm, logs, whatever else is there.
    const after = filesUnder(home).filter((path) =>
      readFileSync(path).toString("latin1").toLowerCase().includes(secret),
    );
    expect(after).toEqual([]);
    const search = await runCli(["memory", "search", "--episodes", "--json", secret], {
      home,
      userHome,
      env,
    });
    const found = JSON.parse(search.stdout) as { results: unknown[]; episodes: unknown[] };
    expect(found.results).toEqual([]);
    expect(found.episodes).toEqual([]);
    const exported = await runCli(["memory", "export"], { home, userHome, env });
    expect(exported.stdout.toLowerCase()).not.toContain(secret);

    // The resumed session still has its turns (placeholders), but the model never sees the secret again.
    const resumed = await runCli(["chat"], { home, userHome, cwd: workspace, env, input: "what else?\n" });
    expect(resumed.code).toBe(0);
    const request = fake.chatRequests()[2]?.body as { messages: { role: string; content: unknown }[] };
    const sent = JSON.stringify(request.messages);
    expect(sent).toContain("what else?");
    expect(sent).toContain("[forgotten]");
    expect(sent.toLowerCase()).not.toContain(secret);
    expect(request.messages.filter((message) => message.role === "user").length).toBe(2);
    const afterChat = filesUnder(home).filter((path) =>
      readFileSync(path).toString("latin1").toLowerCase().includes(secret),
    );
    expect(afterChat).toEqual([]);
  });
});

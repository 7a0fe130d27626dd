import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { fastRetryWithExtraction, makeHome, providerEnv, runChat, runCli } from "../helpers/cli.js";
import { useFakeServers } from "../helpers/fake-servers.js";
import { factExtraction, filesUnder, noMemories } from "../helpers/memory-facts.js";

const server = useFakeServers();

/** Files under `home` whose bytes hold `needle` (UTF-8, as SQLite stores text). */
function holding(home: string, needle: string): string[] {
  const bytes = Buffer.from(needle, "utf8");
  return filesUnder(home).filter((path) => readFileSync(path).includes(bytes));
}

describe("forget erases short and Chinese facts from every file under MERCURY_HOME", () => {
  it("a six-character Chinese turn is gone from the transcript, the extraction records and the next chat", {
    timeout: 120_000,
  }, async () => {
    const secret = "我对芒果过敏";
    const extraction = factExtraction("用户对芒果过敏", secret, "critical");
    const fake = await server({
      replies: [
        { text: "好的，记住了。" },
        { text: extraction },
        // A later chat where the answer repeats the stored fact word for word.
        { text: "记得：用户对芒果过敏。" },
        { text: noMemories },
        { text: "还有什么？" },
        { text: noMemories },
      ],
    });
    const { home, userHome, workspace } = makeHome(fastRetryWithExtraction);
    const env = providerEnv(fake.url);
    const first = await runChat(["chat", "--new"], { home, userHome, workspace }, env, `${secret}\n`);
    expect(first.code, first.stderr).toBe(0);
    const listed = JSON.parse(
      (await runCli(["memory", "list", "--json"], { home, userHome, env })).stdout,
    ) as {
      memories: { id: number; text: string }[];
    };
    const memory = listed.memories.find((entry) => entry.text.includes("芒果"));
    expect(memory).toBeDefined();
    expect(holding(home, "芒果").length).toBeGreaterThan(0);
    const later = await runChat(["chat", "--new"], { home, userHome, workspace }, env, "我能吃什么水果？\n");
    expect(later.code, later.stderr).toBe(0);
    expect(JSON.stringify(fake.chatRequests()[2]?.body)).toContain("用户对芒果过敏");

    const forgotten = await runCli(["memory", "forget", String(memory?.id)], { home, userHome, env });
    expect(forgotten.code, forgotten.stderr).toBe(0);
    expect(holding(home, "芒果")).toEqual([]);

    const resumed = await runCli(["chat"], { home, userHome, cwd: workspace, env, input: "还有吗\n" });
    expect(resumed.code).toBe(0);
    const sent = JSON.stringify(fake.chatRequests()[4]?.body);
    expect(sent).toContain("还有吗");
    expect(sent).not.toContain("芒果");
    expect(holding(home, "芒果")).toEqual([]);
  });
});

import { copyFileSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { fastRetryWithExtraction, makeHome, providerEnv, runChat, runCli } from "../helpers/cli.js";
import { useFakeServers } from "../helpers/fake-servers.js";
import { factExtraction, filesUnder, noMemories } from "../helpers/memory-facts.js";

const server = useFakeServers();

function filesHolding(directory: string, word: string): string[] {
  return filesUnder(directory).filter((path) =>
    readFileSync(path).toString("latin1").toLowerCase().includes(word),
  );
}

describe("forget reaches the backups, and a restore of an older copy does not bring it back", () => {
  it("forgets one of two similar memories everywhere under MERCURY_HOME, backups included; the other stays", async () => {
    const secret = "zebraquartz";
    const other = "walrusmint";
    const extraction = factExtraction(
      `The user's locker code word is ${secret}.`,
      `my locker code word is ${secret}`,
    );
    const fake = await server({
      replies: [
        { text: "Noted." },
        { text: extraction },
        // memory add of the similar fact: the model judge sees the first one as a neighbour.
        { text: '{"judgements":[{"id":1,"verdict":"different","reason":"another locker"}]}' },
        { text: "Hello again." },
        { text: noMemories },
      ],
    });
    const { home, userHome, workspace } = makeHome(fastRetryWithExtraction);
    const env = providerEnv(fake.url);
    const chat = await runChat(
      ["chat", "--new"],
      { home, userHome, workspace },
      env,
      `Please remember: my locker code word is ${secret}, thanks\n`,
    );
    expect(chat.code).toBe(0);
    const added = await runCli(["memory", "add", "--json", `My gym locker code word is ${other}`], {
      home,
      userHome,
      env,
    });
    expect(added.code).toBe(0);
    const list = async () =>
      (
        JSON.parse((await runCli(["memory", "list", "--json"], { home, userHome, env })).stdout) as {
          memories: { id: number; text: string }[];
        }
      ).memories;
    const target = (await list()).find((memory) => memory.text.includes(secret));
    expect(target).toBeDefined();

    const backup = await runCli(["backup", "create", "--json"], { home, userHome, env });
    expect(backup.code).toBe(0);
    const backupPath = (JSON.parse(backup.stdout) as { path: string }).path;
    expect(filesHolding(home, secret)).toContain(backupPath);
    // A copy the user keeps elsewhere (not under MERCURY_HOME): restored later.
    const outside = join(mkdtempSync(join(tmpdir(), "mercury-outside-")), "old.db");
    copyFileSync(backupPath, outside);

    const forgotten = await runCli(["memory", "forget", "--json", String(target?.id)], {
      home,
      userHome,
      env,
    });
    expect(forgotten.code).toBe(0);
    expect(JSON.parse(forgotten.stdout)).toMatchObject({ ok: true, backupsUpdated: 1, backupsFailed: [] });
    expect(filesHolding(home, secret)).toEqual([]);
    // The similar memory is untouched, findable, and its words are still on disk.
    expect((await list()).map((memory) => memory.text)).toEqual([`My gym locker code word is ${other}`]);
    const search = await runCli(["memory", "search", "--json", other], { home, userHome, env });
    expect(search.stdout).toContain(other);

    const restored = await runCli(["backup", "restore", outside, "--json"], { home, userHome, env });
    expect(restored.code).toBe(0);
    expect(restored.stdout).toContain('"tombstonesReapplied":1');
    expect(filesHolding(home, secret)).toEqual([]);
    expect((await list()).some((memory) => memory.text.includes(secret))).toBe(false);
    const episodes = await runCli(["memory", "search", "--episodes", "--json", secret], {
      home,
      userHome,
      env,
    });
    expect(JSON.parse(episodes.stdout)).toMatchObject({ results: [], episodes: [] });

    // The resumed chat sends the old session's turns as placeholders, never the secret.
    const resumed = await runCli(["chat"], { home, userHome, cwd: workspace, env, input: "hello again\n" });
    expect(resumed.code).toBe(0);
    const request = fake.chatRequests().at(-2)?.body as { messages: unknown[] };
    const sent = JSON.stringify(request.messages).toLowerCase();
    expect(sent).toContain("hello again");
    expect(sent).not.toContain(secret);
    expect(filesHolding(home, secret)).toEqual([]);
  });
});

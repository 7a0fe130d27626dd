import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gunzipSync, gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { fastRetryWithExtraction, makeHome, providerEnv, runChat, runCli } from "../helpers/cli.js";
import { useFakeServers } from "../helpers/fake-servers.js";
import { factExtraction, filesUnder, noMemories } from "../helpers/memory-facts.js";

const server = useFakeServers();

/** Files under `home` holding `word` in any case: raw bytes, JSON's \uXXXX escapes, or inside a gzip. */
function holding(home: string, word: string): string[] {
  const escaped = [...word].map((char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`).join("");
  return filesUnder(home).filter((path) => {
    let bytes = readFileSync(path);
    if (bytes[0] === 0x1f && bytes[1] === 0x8b) bytes = gunzipSync(bytes);
    const text = bytes.toString("latin1").toLowerCase();
    return text.includes(word.toLowerCase()) || text.includes(escaped);
  });
}

describe("forget erases every copy Mercury keeps and names the ones it cannot rewrite", () => {
  it("backup, export, session export, caches and logs are clean; a user's database copy and a gzip are listed", {
    timeout: 240_000,
  }, async () => {
    const secret = "zebraquartz";
    const fake = await server({
      replies: [
        { text: "Noted." },
        {
          text: factExtraction(
            `The user's locker code word is ${secret}.`,
            `my locker code word is ${secret}`,
          ),
        },
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
    expect(chat.code, chat.stderr).toBe(0);
    const listed = await runCli(["memory", "list", "--json"], { home, userHome, env });
    const memories = (JSON.parse(listed.stdout) as { memories: { id: number; text: string }[] }).memories;
    const target = memories.find((memory) => memory.text.includes(secret));
    if (!target) throw new Error(`no memory holds ${secret}: ${listed.stdout}`);

    // Copies Mercury makes and manages: a backup, an export written under MERCURY_HOME.
    const backup = await runCli(["backup", "create", "--json"], { home, userHome, env });
    expect(backup.code, backup.stderr).toBe(0);
    const backupPath = (JSON.parse(backup.stdout) as { path: string }).path;
    mkdirSync(join(home, "exports"), { recursive: true });
    const exported = join(home, "exports", "memories.jsonl");
    const exporting = await runCli(["memory", "export", "--json", "--out", exported], {
      home,
      userHome,
      env,
    });
    expect(exporting.code, exporting.stderr).toBe(0);
    // Text files other parts of Mercury leave under MERCURY_HOME (a session export, a channel cache, a
    // rotated log): rewritten in place.
    const sessionExport = join(home, "exports", "session.json");
    writeFileSync(
      sessionExport,
      JSON.stringify({ turns: [{ role: "user", text: `my locker code word is ${secret}` }] }),
    );
    mkdirSync(join(home, "telegram"), { recursive: true });
    const cache = join(home, "telegram", "updates-cache.json");
    writeFileSync(cache, `{"text":"Please remember: my locker code word is ${secret}, thanks"}\n`);
    mkdirSync(join(home, "logs"), { recursive: true });
    const rotated = join(home, "logs", "mercury.log.1");
    writeFileSync(rotated, `2026-12-01 info remembered: my locker code word is ${secret}\n`);
    // Copies Mercury does not manage: a copy of the backup the user put aside, a log they compressed.
    mkdirSync(join(home, "keep"), { recursive: true });
    const userCopy = join(home, "keep", "my-copy.db");
    copyFileSync(backupPath, userCopy);
    const archive = join(home, "logs", "mercury.log.2.gz");
    writeFileSync(archive, gzipSync(`2026-11-30 info my locker code word is ${secret}\n`));
    expect(holding(home, secret)).toEqual(
      expect.arrayContaining([backupPath, exported, sessionExport, cache, rotated, userCopy, archive]),
    );

    const forgotten = await runCli(["memory", "forget", "--json", String(target.id)], {
      home,
      userHome,
      env,
    });
    expect(forgotten.code, forgotten.stderr).toBe(0);
    const receipt = JSON.parse(forgotten.stdout) as {
      backupsUpdated: number;
      workspaceFilesHolding: string[];
      copiesHolding: string[];
    };
    expect(receipt.backupsUpdated).toBe(1);
    expect(receipt.workspaceFilesHolding).toEqual([]);
    expect([...receipt.copiesHolding].sort()).toEqual([archive, userCopy].sort());
    // Every file under MERCURY_HOME: only the two named copies still hold the text.
    expect(holding(home, secret).sort()).toEqual([archive, userCopy].sort());
    // The next chat does not hand the forgotten turn to the model.
    const before = fake.chatRequests().length;
    const resumed = await runCli(["chat"], { home, userHome, cwd: workspace, env, input: "what else?\n" });
    expect(resumed.code, resumed.stderr).toBe(0);
    const sent = JSON.stringify(
      fake
        .chatRequests()
        .slice(before)
        .map((request) => request.body),
    );
    expect(sent).toContain("what else?");
    expect(sent.toLowerCase()).not.toContain(secret);
    expect(holding(home, secret).sort()).toEqual([archive, userCopy].sort());
  });
});

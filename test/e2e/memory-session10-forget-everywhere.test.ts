import { readFileSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { fastRetryWithExtraction, makeHome, providerEnv, runChat, runCli } from "../helpers/cli.js";
import { useFakeServers } from "../helpers/fake-servers.js";
import { factExtraction, filesUnder, noMemories } from "../helpers/memory-facts.js";

const server = useFakeServers();

/** Files under `home` holding `word` in any case: raw bytes (database pages, -wal, -shm, logs) or JSON's \uXXXX escapes. */
function holding(home: string, word: string): string[] {
  const escaped = [...word].map((char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, "0")}`).join("");
  return filesUnder(home).filter((path) => {
    const text = readFileSync(path).toString("latin1").toLowerCase();
    return text.includes(word.toLowerCase()) || text.includes(escaped);
  });
}

// Session 10: the text planted through ordinary use in the places a forget can miss — the raw output
// of an extraction that failed (kept for diagnosis), the transcript, episodes and their search
// documents, the memory's FTS postings and versions, a scheduled job's run and its result, the logs
// — then one `memory forget`, then every file under MERCURY_HOME (database, -wal, -shm, logs) is read.
describe("forget leaves the text in no file under MERCURY_HOME (session 10)", () => {
  it("a failed extraction's raw output, a confirmation's version, a scheduled run's result", {
    timeout: 240_000,
  }, async () => {
    const secret = "quokkaviolin";
    const broken = `{"memories":[{"kind":"fact","text":"The user's locker code word is ${secret}"`;
    const fake = await server({
      replies: [
        { text: "Noted." },
        // The extraction answers broken JSON twice (the first answer and its one repair): the job fails
        // and its raw output — holding the secret — is recorded in extraction_failures.
        { text: broken },
        { text: `${broken} oops` },
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
    expect(first.code, first.stderr).toBe(0);
    // Planted where this test means to look: the failure record keeps the model's raw output.
    const check = new Database(join(home, "mercury.db"), { readonly: true });
    const failures = check.prepare("SELECT raw_output FROM extraction_failures").all() as {
      raw_output: string;
    }[];
    check.close();
    expect(failures.map((row) => row.raw_output).join("\n")).toContain(secret);

    // The same conversation, said again: stored this time, then said a third time (a confirmation, a version).
    fake.push(
      { text: "Got it." },
      {
        text: factExtraction(`The user's locker code word is ${secret}.`, `my locker code word is ${secret}`),
      },
      { text: "Yes, I have it." },
      {
        text: factExtraction(`The user's locker code word is ${secret}.`, `my locker code word is ${secret}`),
      },
    );
    const second = await runChat(
      ["chat"],
      { home, userHome, workspace },
      env,
      `my locker code word is ${secret}, remember it\nagain: my locker code word is ${secret}\n`,
    );
    expect(second.code, second.stderr).toBe(0);
    const listed = await runCli(["memory", "list", "--json"], { home, userHome, env });
    const memories = (JSON.parse(listed.stdout) as { memories: { id: number; text: string }[] }).memories;
    const target = memories.find((memory) => memory.text.includes(secret));
    if (!target) throw new Error(`no memory holds ${secret}: ${listed.stdout}`);
    const searched = await runCli(["memory", "search", secret, "--episodes"], { home, userHome, env });
    expect(searched.stdout.toLowerCase()).toContain(secret);

    // A scheduled job run here (no daemon): its result holds the secret.
    const added = await runCli(
      ["schedule", "add", "every 30 minutes", "say hello", "--deliver", "none", "--json"],
      { home, userHome, cwd: workspace, env },
    );
    expect(added.code, added.stderr).toBe(0);
    const jobId = (JSON.parse(added.stdout) as { job: { id: string } }).job.id;
    fake.push({ text: `Hello! Your locker code word is ${secret}.` }, { text: noMemories });
    const ran = await runCli(["schedule", "run-now", jobId], { home, userHome, cwd: workspace, env });
    expect(ran.code, ran.stderr).toBe(0);
    const history = await runCli(["schedule", "history", jobId, "--json"], { home, userHome, env });
    expect(history.stdout).toContain('"outcome":"responded"');

    const forgotten = await runCli(["memory", "forget", "--json", String(target.id)], {
      home,
      userHome,
      env,
    });
    expect(forgotten.code, forgotten.stderr).toBe(0);
    expect(holding(home, secret)).toEqual([]);
    const after = await runCli(["memory", "search", secret, "--episodes"], { home, userHome, env });
    expect(after.stdout).toMatch(/^no memories match/i);
  });

  it("an extraction still waiting (its excerpt and the provider's error quoting it), a memory added by hand", {
    timeout: 240_000,
  }, async () => {
    const secret = "marmotcello";
    // Only the chat reply is scripted: every extraction call then gets the fake's 500, whose message
    // quotes the prompt's last user message — as a provider's error can — and the job waits for a retry.
    const fake = await server({ replies: [{ text: "Noted." }] });
    const { home, userHome, workspace } = makeHome(fastRetryWithExtraction);
    const env = providerEnv(fake.url);
    const chat = await runChat(
      ["chat", "--new"],
      { home, userHome, workspace },
      env,
      `note for later: my bike lock combination word is ${secret}\n`,
    );
    expect(chat.code, chat.stderr).toBe(0);
    const check = new Database(join(home, "mercury.db"), { readonly: true });
    const waiting = check
      .prepare("SELECT transcript_excerpt FROM extraction_jobs WHERE status != 'done'")
      .all() as { transcript_excerpt: string | null }[];
    check.close();
    expect(waiting.map((row) => row.transcript_excerpt ?? "").join("\n")).toContain(secret);

    const added = await runCli(
      ["memory", "add", "--json", `The user's bike lock combination word is ${secret}`],
      { home, userHome, env },
    );
    expect(added.code, added.stderr).toBe(0);
    const listed = await runCli(["memory", "list", "--json"], { home, userHome, env });
    const memories = (JSON.parse(listed.stdout) as { memories: { id: number; text: string }[] }).memories;
    const target = memories.find((memory) => memory.text.includes(secret));
    if (!target) throw new Error(`no memory holds ${secret}: ${listed.stdout}`);

    const forgotten = await runCli(["memory", "forget", "--json", String(target.id)], {
      home,
      userHome,
      env,
    });
    expect(forgotten.code, forgotten.stderr).toBe(0);
    expect(holding(home, secret)).toEqual([]);
  });
});

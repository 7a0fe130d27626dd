/** Runs openai-server-main.ts as a real child process, as a developer would from a shell. */
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";

const MAIN = join(import.meta.dirname, "openai-server-main.ts");
const children: ChildProcess[] = [];
let dir: string | undefined;

afterEach(async () => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill("SIGKILL");
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  dir = undefined;
});

function start(args: string[]): ChildProcess {
  const child = spawn(process.execPath, ["--import", "tsx", MAIN, ...args], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(child);
  return child;
}

async function firstLine(child: ChildProcess): Promise<string> {
  let buffered = "";
  for await (const chunk of child.stdout ?? []) {
    buffered += String(chunk);
    const end = buffered.indexOf("\n");
    if (end >= 0) return buffered.slice(0, end);
  }
  throw new Error(`server exited before printing its url (exit ${child.exitCode})`);
}

async function stderrOf(child: ChildProcess): Promise<string> {
  let text = "";
  for await (const chunk of child.stderr ?? []) text += String(chunk);
  return text;
}

describe("openai-server-main", () => {
  it("serves the replies file, prints its url, and exits 0 on SIGTERM", async () => {
    dir = await mkdtemp(join(tmpdir(), "fake-openai-"));
    const replies = join(dir, "replies.json");
    await writeFile(replies, JSON.stringify([{ text: "from a file" }]));
    const child = start(["--replies", replies, "--api-key", "k"]);
    const { url } = JSON.parse(await firstLine(child)) as { url: string };
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);

    const response = await fetch(`${url}/chat/completions`, {
      method: "POST",
      headers: { authorization: "Bearer k", "content-type": "application/json" },
      body: JSON.stringify({ model: "m", messages: [{ role: "user", content: "hi" }] }),
    });
    const body = (await response.json()) as { choices: { message: { content: string } }[] };
    expect(body.choices[0]?.message.content).toBe("from a file");

    const exited = once(child, "exit");
    child.kill("SIGTERM");
    expect((await exited)[0]).toBe(0);
  });

  it("exits 2 naming the bad field of an invalid replies file", async () => {
    dir = await mkdtemp(join(tmpdir(), "fake-openai-"));
    const replies = join(dir, "replies.json");
    await writeFile(replies, JSON.stringify([{ error: { status: 42, message: "x" } }]));
    const child = start(["--replies", replies]);
    const [stderr, [code]] = await Promise.all([stderrOf(child), once(child, "exit")]);
    expect(code).toBe(2);
    expect(stderr).toContain("invalid scripted replies: 0");
  });

  it("exits 2 on an unknown flag", async () => {
    const child = start(["--nope"]);
    const [stderr, [code]] = await Promise.all([stderrOf(child), once(child, "exit")]);
    expect(code).toBe(2);
    expect(stderr).toContain("--nope");
  });
});

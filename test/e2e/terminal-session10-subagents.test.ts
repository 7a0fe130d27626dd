import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { fastRetryConfig, makeHome, providerEnv, runCli } from "../helpers/cli.js";
import { useFakeServers } from "../helpers/fake-servers.js";
import { useTmuxChats } from "../helpers/tmux.js";

/** Session 10: a sub-agent's events in the terminal, through the built binary. */
const server = useFakeServers();
const openTerminal = useTmuxChats();

/** Live processes whose command line holds `marker` as a word (a sandboxed `sleep <marker>`). */
function processesWith(marker: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const words = readFileSync(`/proc/${entry}/cmdline`, "utf8").split("\0");
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      if (words.includes(marker) && stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z")
        found.push(Number(entry));
    } catch {
      // The process ended while we looked.
    }
  }
  return found;
}

describe("sub-agents in the terminal (session 10)", { timeout: 120_000 }, () => {
  it("`mercury run`: a child's answer is not written into the parent's on stdout, and its end is one labelled line, not a second banner", async () => {
    const fake = await server({
      replies: [
        { toolCalls: [{ name: "delegate_task", input: { task: "read the notes" } }] },
        { toolCalls: [{ name: "read_file", input: { path: "notes.txt" } }] },
        { text: "CHILD TEXT" },
        { text: "PARENT TEXT" },
      ],
    });
    const place = makeHome(fastRetryConfig);
    writeFileSync(join(place.workspace, "notes.txt"), "hello\n");
    const run = await runCli(["run", "delegate it"], {
      home: place.home,
      userHome: place.userHome,
      cwd: place.workspace,
      env: providerEnv(fake.url),
    });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toBe("PARENT TEXT\n");
    expect(run.stderr).toContain("  ↳ child-1 ✓ read_file notes.txt");
    expect(run.stderr).toContain("  ↳ child-1 ✓ sub-agent responded (text-stop)");
    expect(run.stderr).toContain("✓ delegate_task read the notes — child-1 responded");
    // One banner: the task's own.
    expect(run.stderr.split("\n").filter((line) => /^[✓✗■⏸] (responded|completed)/.test(line))).toEqual([
      "✓ responded (text-stop)",
    ]);
  });

  it("chat: Ctrl+C while a child's command runs stops both; one banner, the child's end labelled, no process left", async () => {
    const marker = String(880_000 + Math.floor(Math.random() * 99_999));
    const fake = await server({
      replies: [
        { toolCalls: [{ name: "delegate_task", input: { task: "wait for the signal" } }] },
        { toolCalls: [{ name: "run_command", input: { command: `sleep ${marker}` } }] },
      ],
    });
    const place = makeHome(fastRetryConfig);
    const chat = openTerminal({
      home: place.home,
      userHome: place.userHome,
      cwd: place.workspace,
      env: providerEnv(fake.url),
    });
    await chat.waitFor((screen) => screen.includes("/help for commands"), "the welcome line");
    chat.type("wait for it");
    chat.enter();
    await chat.waitFor(() => processesWith(marker).length > 0, "the child's command to run");
    chat.key("C-c");
    const screen = await chat.waitFor(
      (text) => /^■ cancelled/m.test(text) && text.includes("↳ child-1 ■ sub-agent cancelled"),
      "the task's and the child's ends",
    );
    await chat.waitFor(() => processesWith(marker).length === 0, "the child's command to end");
    const banners = screen
      .split("\n")
      .filter((line) => /^[✓✗■⏸] (completed|responded|paused|failed|cancelled)/.test(line));
    expect(banners).toHaveLength(1);
    expect(screen).toContain("✗ delegate_task wait for the signal — child-1 cancelled");
    expect(screen).not.toContain('{"agentId"');
  });
});

import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as delay } from "node:timers/promises";
import { afterEach, describe, expect, it } from "vitest";
import { cliPath, fastRetryConfig, makeHome } from "../../helpers/cli.js";
import { useFakeServers } from "../../helpers/fake-servers.js";
import { loadedMachineWaitMs } from "../../helpers/patience.js";
import { userMessages } from "../../helpers/tmux.js";

/**
 * A person at a shell in a real terminal (tmux running bash, so Ctrl+Z and `fg` are job control as
 * at home): `mercury chat` on TERM=dumb, with its answers redirected to a file, in a 40-column window
 * resized during the chat, and stopped with Ctrl+Z and brought back. One shell for all of it.
 */
const server = useFakeServers();
const shells: Shell[] = [];
afterEach(() => {
  for (const shell of shells.splice(0)) shell.close();
});

class Shell {
  private readonly socket = `mercury-s11-${process.pid}-${shells.length}`;
  constructor(cwd: string, env: Record<string, string>) {
    // bash itself on a dumb terminal: it draws nothing either, so the raw bytes are the chat's.
    this.tmux(
      [
        "new-session",
        "-d",
        "-s",
        "sh",
        "-x",
        "40",
        "-y",
        "50",
        "-c",
        cwd,
        "env",
        "TERM=dumb",
        "bash",
        "--norc",
        "--noprofile",
      ],
      { PATH: process.env.PATH ?? "/usr/bin:/bin", ...env },
    );
  }
  tmux(args: string[], env?: NodeJS.ProcessEnv): string {
    return execFileSync("tmux", ["-L", this.socket, ...args], { encoding: "utf8", ...(env ? { env } : {}) });
  }
  screen(): string {
    return this.tmux(["capture-pane", "-p", "-J", "-S", "-200", "-t", "sh"]);
  }
  rows(): string[] {
    return this.tmux(["capture-pane", "-p", "-S", "-200", "-t", "sh"]).split("\n");
  }
  line(text: string): void {
    this.tmux(["send-keys", "-t", "sh", "-l", text]);
    this.tmux(["send-keys", "-t", "sh", "Enter"]);
  }
  key(name: string): void {
    this.tmux(["send-keys", "-t", "sh", name]);
  }
  async waitFor(test: (screen: string) => boolean, what: string): Promise<string> {
    const deadline = Date.now() + loadedMachineWaitMs;
    let last = "";
    while (Date.now() < deadline) {
      last = this.screen();
      if (test(last)) return last;
      await delay(50);
    }
    throw new Error(`the terminal never showed ${what}; last screen:\n${last}`);
  }
  close(): void {
    try {
      this.tmux(["kill-server"]);
    } catch (error) {
      if (!String(error).includes("no server running") && !String(error).includes("error connecting"))
        throw error;
    }
  }
}

const count = (text: string, needle: string) => text.split(needle).length - 1;
const paragraph =
  "Wrapping words properly matters because a narrow terminal window otherwise splits important vocabulary awkwardly across consecutive rows.";

describe("mercury chat at a shell: TERM=dumb, redirected answers, resize, Ctrl+Z/fg (session 11)", {
  timeout: 300_000,
}, () => {
  it("no escape codes where they cannot be drawn; wraps to the window; survives Ctrl+Z and fg", async () => {
    const fake = await server({
      replies: [{ text: "Plain answer for a dumb terminal." }, { text: "Answer written to the file." }],
    });
    const { home, userHome, workspace } = makeHome(fastRetryConfig);
    const shell = new Shell(workspace, { HOME: userHome });
    shells.push(shell);
    const chatCommand = `node ${cliPath} chat`;
    const raw = join(userHome, "raw.out");
    shell.line(
      `export HOME=${userHome} MERCURY_HOME=${home} MERCURY_PROVIDER=openai-compatible MERCURY_BASE_URL=${fake.url} MERCURY_MODEL=fake-model PS1='$ '`,
    );
    await shell.waitFor((screen) => screen.trimEnd().endsWith("$"), "the shell prompt");

    // 1. TERM=dumb: every byte the chat writes is plain text; Ctrl+C twice leaves with 0.
    shell.tmux(["pipe-pane", "-t", "sh", "-o", `cat > ${raw}`]);
    shell.line(chatCommand);
    await shell.waitFor((screen) => screen.includes("/help for commands"), "the welcome line");
    shell.line("hello dumb");
    await shell.waitFor((screen) => screen.includes("✓ responded"), "the answer on the dumb terminal");
    shell.key("C-c");
    await shell.waitFor((screen) => screen.includes("(Ctrl+C again to exit)"), "the exit hint");
    shell.key("C-c");
    await shell.waitFor((screen) => screen.trimEnd().endsWith("$"), "the shell prompt after the chat");
    shell.tmux(["pipe-pane", "-t", "sh"]);
    const dumbBytes = readFileSync(raw, "utf8");
    expect(dumbBytes).toContain("Plain answer for a dumb terminal.");
    expect(dumbBytes).not.toContain("\u001b");
    shell.line("echo exit=$?");
    await shell.waitFor((screen) => screen.includes("exit=0"), "exit status 0");

    // 2. Answers redirected to a file (the person still types at the terminal): no control codes in it.
    shell.line(`TERM=xterm-256color ${chatCommand} > answers.txt`);
    await shell.waitFor((screen) => count(screen, "/help for commands") === 2, "the second welcome line");
    shell.line("hello file");
    await shell.waitFor((screen) => count(screen, "✓ responded") === 2, "the banner on the terminal");
    shell.key("C-d");
    shell.line("echo exit=$?");
    await shell.waitFor((screen) => count(screen, "exit=0") === 2, "exit status 0 after Ctrl+D");
    const answers = readFileSync(join(workspace, "answers.txt"), "utf8");
    expect(answers).toContain("Answer written to the file.");
    expect(answers).not.toContain("\u001b");

    // 3. A drawn chat in 40 columns: a long paste plus an invalid UTF-8 byte is one message, the
    // answer wraps between words; after a resize the next answer wraps to the new width.
    fake.push({ text: paragraph }, { text: paragraph.toUpperCase() });
    shell.line(`TERM=xterm-256color ${chatCommand}`);
    await shell.waitFor((screen) => count(screen, "/help for commands") === 3, "the drawn chat");
    const pasted = Array.from({ length: 300 }, (_, index) => `pasted line ${index} ${"x".repeat(60)}`).join(
      "\n",
    );
    const pasteFile = join(userHome, "paste.txt");
    writeFileSync(pasteFile, pasted);
    shell.tmux(["load-buffer", "-b", "big", pasteFile]);
    shell.tmux(["paste-buffer", "-p", "-b", "big", "-t", "sh"]);
    await shell.waitFor((screen) => screen.includes("[paste #1, 300 lines]"), "the paste token");
    shell.tmux(["send-keys", "-t", "sh", "-H", "20", "ff", "fe", "20"]);
    shell.line("end");
    await shell.waitFor((screen) => count(screen, "✓ responded") === 3, "the answer in 40 columns");
    const sent = String(userMessages(fake.chatRequests()[2]?.body).at(-1));
    expect(sent.split("\n")).toHaveLength(300);
    expect(sent).toContain("pasted line 299");
    expect(sent.endsWith("end")).toBe(true);
    const narrowRows = shell.rows().filter((row) => /[a-z]/.test(row) && paragraph.includes(row.trim()));
    // Every row of the answer is whole words of it: nothing split mid-word at the edge.
    expect(narrowRows.join(" ").replace(/\s+/g, " ").trim()).toBe(paragraph);
    for (const row of narrowRows) expect(row.length).toBeLessThanOrEqual(40);

    const held = fake.hold();
    shell.line("again");
    await held.arrived;
    shell.tmux(["resize-window", "-t", "sh", "-x", "100"]);
    held.release();
    await shell.waitFor((screen) => count(screen, "✓ responded") === 4, "the answer after the resize");
    const upper = paragraph.toUpperCase();
    const wideRows = shell.rows().filter((row) => /[A-Z]{3}/.test(row) && upper.includes(row.trim()));
    expect(wideRows.join(" ").replace(/\s+/g, " ").trim()).toBe(upper);
    expect(Math.max(...wideRows.map((row) => row.trimEnd().length))).toBeGreaterThan(40);

    // 4. Ctrl+Z, fg: keys are read as keys again (Ctrl+C is the chat's, not a kill).
    shell.tmux(["send-keys", "-t", "sh", "-l", "abc"]);
    shell.key("C-z");
    await shell.waitFor((screen) => screen.includes("Stopped"), "the job stopped");
    shell.line("fg");
    shell.tmux(["send-keys", "-t", "sh", "-l", "def"]);
    await shell.waitFor((screen) => screen.includes("› abcdef"), "the prompt back with the typed text");
    shell.key("C-c");
    await shell.waitFor((screen) => count(screen, "(Ctrl+C again to exit)") === 2, "Ctrl+C read as a key");
    shell.key("C-c");
    shell.line("echo exit=$?");
    await shell.waitFor((screen) => count(screen, "exit=0") === 3, "exit status 0 after fg and Ctrl+C twice");
  });
});

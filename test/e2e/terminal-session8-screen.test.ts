import { describe, expect, it } from "vitest";
import { fastRetryConfig, fastRetryWithExtraction, makeHome, providerEnv } from "../helpers/cli.js";
import { useFakeServers } from "../helpers/fake-servers.js";
import { gitProject } from "../helpers/git-project.js";
import { latestTask, query } from "../helpers/ledger.js";
import { type TmuxChat, useTmuxChats } from "../helpers/tmux.js";

/**
 * What a newcomer saw in a real terminal (tmux, the built binary, a loopback model): a long line
 * typed while the model worked was drawn again and again down the screen and the lines printed
 * above it were erased; leaving the chat left a dead "› " for the shell to write after; and the
 * exit sat silent while the last memory extraction ran.
 */
const server = useFakeServers();
const openChat = useTmuxChats();

async function startChat(url: string, config: string): Promise<{ chat: TmuxChat; home: string }> {
  const { home, userHome } = makeHome(config);
  const chat = openChat({
    home,
    userHome,
    cwd: gitProject({ "notes.md": "notes\n" }),
    env: providerEnv(url),
  });
  await chat.waitFor((screen) => screen.includes("/help for commands"), "the welcome line");
  return { chat, home };
}

/** How often `text` is on the screen, read across the rows a long line wraps onto. */
const occurrences = (screen: string, text: string): number =>
  screen.replace(/\n/g, "").split(text).length - 1;

/** The largest elapsed time a spinner on the screen shows ("writing 12s"); -1 without one. */
const spinnerSeconds = (screen: string): number =>
  Math.max(-1, ...[...screen.matchAll(/writing (\d+)s/g)].map((match) => Number(match[1])));

/** A line of the screen that is the prompt and nothing else: a prompt still drawn. */
const barePrompt = (screen: string): boolean => screen.split("\n").some((line) => line.trim() === "›");

describe("mercury chat's screen in a real terminal (tmux, built binary)", { timeout: 300_000 }, () => {
  it("a long line typed while the model works is drawn once, and the lines printed above it stay", async () => {
    const fake = await server({ replies: [{ hang: true, text: ["First paragraph of the answer.\n\n"] }] });
    const { chat } = await startChat(fake.url, fastRetryConfig);
    chat.type("work on it");
    chat.enter();
    await chat.waitFor((screen) => screen.includes("First paragraph of the answer."), "the first paragraph");
    // Three rows at 100 columns, arriving in one read as a fast typist's or a one-line paste's do.
    const typed = `STEER-START ${"abcdefghij".repeat(25)} STEER-END`;
    chat.type(typed);
    // Several spinner frames redraw the prompt with the wrapped line under it.
    const seenAt = spinnerSeconds(
      await chat.waitFor((screen) => occurrences(screen, "STEER-END") > 0, "the typed line"),
    );
    const spinning = await chat.waitFor(
      (screen) => spinnerSeconds(screen) >= seenAt + 2,
      "the spinner counting on with the typed line",
    );
    expect(occurrences(spinning, "STEER-START"), spinning).toBe(1);
    expect(occurrences(spinning, "(type to steer)"), spinning).toBe(1);

    // Ctrl+C prints above the (still wrapped) line: nothing printed before may be erased.
    chat.key("C-c");
    const stopped = await chat.waitFor((screen) => screen.includes("■ cancelled"), "the task cancelled");
    expect(stopped).toContain("First paragraph of the answer.");
    expect(stopped).toContain("stopping… (Ctrl+C again to exit)");
    expect(occurrences(stopped, "STEER-START"), stopped).toBe(1);
    const lines = stopped.split("\n").filter((line) => line.trim() !== "");
    // The typed line is still being edited, on the prompt below everything printed.
    expect(
      lines.findIndex((line) => line.startsWith("› STEER-START")),
      stopped,
    ).toBeGreaterThan(lines.findIndex((line) => line.startsWith("■ cancelled")));

    // Ctrl+C until the chat ends, one press at a time: a press after it ended would reach the shell
    // that records its exit status.
    chat.key("C-c");
    await chat.waitFor(
      (screen) => chat.exitStatus() !== null || screen.includes("(Ctrl+C again to exit)"),
      "the chat leaving, or asking for the second press",
    );
    if (chat.exitStatus() === null) chat.key("C-c");
    expect(await chat.waitForExit("the chat")).toBe(0);
    const left = chat.screen();
    expect(left).not.toContain("STEER-START");
    expect(barePrompt(left), left).toBe(false);
  });

  it("a streamed answer's paragraphs are set apart by a blank line, as when it arrives at once", async () => {
    const fake = await server({
      replies: [{ text: ["First paragraph.\n\n", "Second paragraph.\n\n", "- a list item\n"] }],
    });
    const { chat } = await startChat(fake.url, fastRetryConfig);
    chat.type("write three blocks");
    chat.enter();
    const screen = await chat.waitFor((text) => text.includes("✓ responded"), "the answer and its banner");
    expect(screen).toMatch(/^First paragraph\.\n\nSecond paragraph\.\n\n {4}\* a list item\n✓ responded/m);
  });

  it("Ctrl+D leaves no prompt behind; the wait for the last memory extraction is announced and Ctrl+C ends it", async () => {
    // The second request is the memory extraction after the turn: it never answers.
    const fake = await server({ replies: [{ text: "Noted, thanks." }, { hang: true }] });
    const { chat, home } = await startChat(fake.url, fastRetryWithExtraction);
    chat.type("I prefer tea to coffee");
    chat.enter();
    await chat.waitFor((screen) => screen.includes("✓ responded"), "the answer's banner");
    const task = latestTask(home);

    chat.key("C-d");
    const waiting = await chat.waitFor(
      (screen) => screen.includes("saving what to remember from this chat… (Ctrl+C to leave now)"),
      "the exit saying what it waits for",
    );
    // The prompt was erased when the chat closed: the notice starts at the left edge.
    expect(barePrompt(waiting), waiting).toBe(false);
    expect(waiting).toMatch(/^saving what to remember/m);
    chat.key("C-c");
    expect(await chat.waitForExit("the chat")).toBe(0);

    // The turn is in the transcript and the ledger as it happened.
    expect(query(home, "SELECT status FROM tasks WHERE id = ?", task.id)).toEqual({ status: "responded" });
    const said = query<{ content: string }>(
      home,
      "SELECT group_concat(content, '\n') AS content FROM messages WHERE task_id = ?",
      task.id,
    ).content;
    expect(said).toContain("I prefer tea to coffee");
    expect(said).toContain("Noted, thanks.");
  });
});

import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { type DaemonHome, daemonHome } from "../../daemon/daemon-helpers.js";
import { useFakeServers } from "../../helpers/fake-servers.js";
import { colourAt, userMessages, useTmuxChats } from "../../helpers/tmux.js";

/**
 * `mercury chat` attached to a running daemon, in a real pseudo-terminal: the same terminal as the
 * in-process chat (spinner, Markdown, tool lines, notices above the prompt, bracketed paste).
 */
const server = useFakeServers();
const openChat = useTmuxChats();
const daemons: DaemonHome[] = [];
afterEach(async () => {
  for (const daemon of daemons.splice(0)) await daemon.cleanup();
});

async function attachedChat(url: string, env: Record<string, string> = {}, typeahead?: string) {
  const daemon = daemonHome(url, env);
  daemons.push(daemon);
  const started = await daemon.cli(["start"]);
  expect(started.code, started.stderr).toBe(0);
  const chat = openChat({
    home: daemon.home,
    userHome: daemon.userHome,
    cwd: daemon.workspace,
    env: daemon.env,
  });
  if (typeahead !== undefined) {
    // Typed at once, while the chat is still loading and connecting.
    chat.type(typeahead);
    chat.enter();
  }
  await chat.waitFor(
    (screen) => screen.includes("attached to the running Mercury daemon") && screen.includes("›"),
    "the attached welcome line and prompt",
  );
  return { chat, daemon };
}

describe("mercury chat attached to the daemon, in a real terminal (tmux)", () => {
  it("a multi-line bracketed paste reaches the daemon as ONE message", async () => {
    const fake = await server({ replies: [{ text: "Got the pasted lines." }] });
    const { chat } = await attachedChat(fake.url);
    chat.paste("alpha\nbeta\ngamma");
    await chat.waitFor((screen) => screen.includes("[paste #1, 3 lines]"), "the paste token");
    chat.enter();
    await chat.waitFor((screen) => screen.includes("Got the pasted lines."), "the answer");
    const requests = fake.chatRequests();
    expect(requests).toHaveLength(1);
    expect(userMessages(requests[0]?.body).at(-1)).toBe("alpha\nbeta\ngamma");

    chat.type("/status");
    chat.enter();
    const status = await chat.waitFor((screen) => screen.includes("approvals pending:"), "the status");
    expect(status).toMatch(/mercury \S+ running \(pid \d+, up /);
    expect(status).not.toContain('"uptimeSeconds"');
  });

  it("a line typed while the chat is still starting is sent once it is attached", async () => {
    const fake = await server({ replies: [{ text: "Heard you early." }] });
    const { chat } = await attachedChat(fake.url, {}, "typed early");
    await chat.waitFor((screen) => screen.includes("Heard you early."), "the answer");
    expect(userMessages(fake.chatRequests()[0]?.body).at(-1)).toBe("typed early");
  });

  it("a slow model shows the spinner; the answer's Markdown is rendered", async () => {
    const fake = await server({
      replies: [{ text: "# Plan\n\nSome **bold words** and `inline code`.\n\n```\nconst x = 1;\n```\n" }],
    });
    const held = fake.hold();
    const { chat } = await attachedChat(fake.url);
    chat.type("show me");
    chat.enter();
    await held.arrived;
    const spinning = await chat.waitFor((screen) => /thinking \d+s/.test(screen), "the spinner");
    expect(spinning).toMatch(/[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] thinking \d+s/);
    held.release();
    const screen = await chat.waitFor((text) => text.includes("✓ responded"), "the answer and banner");
    expect(screen).toContain("Some bold words and inline code.");
    expect(screen).not.toContain("**bold words**");
    expect(screen).not.toContain("```");
    expect(screen).toContain("const x = 1;");
    // The heading is styled (bold, coloured), not marked up with "#".
    expect(screen).toMatch(/^Plan$/m);
    await chat.waitFor(
      // capture-pane drops trailing spaces: the idle prompt is the bare "›".
      (text) => (text.split("\n").filter(Boolean).at(-1) ?? "").trim() === "›",
      "the plain prompt back after the banner",
    );
  });

  it("a notice from the daemon is printed above the prompt and leaves the typed line intact", async () => {
    const fake = await server({ replies: [{ text: "Answer after the wait." }] });
    const held = fake.hold();
    const { chat } = await attachedChat(fake.url, {
      MERCURY_STALL_SOFT_MS: "300",
      MERCURY_STALL_HARD_MS: "600000",
    });
    chat.type("first task");
    chat.enter();
    await held.arrived;
    chat.type("half-typed words");
    const screen = await chat.waitFor(
      (text) => text.includes("still working") && text.includes("half-typed words"),
      "the notice and the typed text",
    );
    const lines = screen.split("\n").filter((line) => line.trim() !== "");
    const noticeLine = lines.findIndex((line) => line.includes("still working"));
    const inputLine = lines.findIndex((line) => line.includes("half-typed words"));
    expect(inputLine).toBeGreaterThan(noticeLine);
    expect(lines[inputLine]).toMatch(/› half-typed words$/);
    held.release();
  });

  it("one line per tool call: a failed call is a red ✗ with its cause, a good one a green ✓", async () => {
    const fake = await server({
      replies: [
        { toolCalls: [{ name: "read_file", input: { path: "missing.txt" } }] },
        { toolCalls: [{ name: "read_file", input: { path: "notes.txt" } }] },
        { text: "Read it." },
      ],
    });
    const { chat, daemon } = await attachedChat(fake.url);
    writeFileSync(join(daemon.workspace, "notes.txt"), "one\ntwo\n");
    chat.type("read my notes");
    chat.enter();
    const colored = await chat.waitForColored(
      (screen) => screen.includes("✓ responded"),
      "the tool lines and the banner",
    );
    expect(colourAt(colored, "✗ read_file missing.txt — ")).toBe(31);
    expect(colourAt(colored, "✓ read_file notes.txt — ")).toBe(32);
  });

  it("Ctrl+C stops the daemon's running task; twice when idle leaves, and the daemon keeps running", async () => {
    const fake = await server({ replies: [{ hang: true }] });
    const { chat, daemon } = await attachedChat(fake.url);
    chat.type("a long job");
    chat.enter();
    await chat.waitFor(
      (screen) => /thinking \d+s/.test(screen) && fake.chatRequests().length === 1,
      "the spinner and the request at the model",
    );
    chat.key("C-c");
    await chat.waitFor((screen) => screen.includes("■ cancelled"), "the task cancelled");
    // A second Ctrl+C within 2 s of the first leaves at once; later, it first shows the hint.
    chat.key("C-c");
    await chat.waitFor(
      (screen) => chat.exitStatus() !== null || /^\(Ctrl\+C again to exit\)/m.test(screen),
      "the chat leaving or the exit hint",
    );
    if (chat.exitStatus() === null) chat.key("C-c");
    expect(await chat.waitForExit("the attached chat")).toBe(0);
    const status = await daemon.cli(["status"]);
    expect(status.code, status.stderr).toBe(0);
    expect(status.stdout).toContain("running (pid");
    expect(daemon.query("SELECT status FROM tasks")).toEqual([{ status: "cancelled" }]);
  });

  it("an approval shows when it expires in words, the prompt asks for the answer, and y runs the command", async () => {
    const fake = await server({
      replies: [
        { toolCalls: [{ name: "run_command", input: { command: "touch approved.txt" } }] },
        { text: "Done." },
      ],
    });
    const { chat, daemon } = await attachedChat(fake.url);
    chat.type("make the file");
    chat.enter();
    const asking = await chat.waitFor(
      (screen) => screen.includes("approve? y/s/a/n ›"),
      "the approval prompt",
    );
    expect(asking).toMatch(/\? approval needed: run: touch approved\.txt .*expires in \d+ min/s);
    expect(asking).not.toMatch(/expires \d{4}-\d\d-\d\dT/);
    chat.type("y");
    chat.enter();
    await chat.waitFor(
      (screen) => screen.includes("✓ run_command touch approved.txt — exit 0"),
      "the command's line",
    );
    await chat.waitFor((screen) => screen.includes("✓ completed"), "the banner");
    expect(existsSync(join(daemon.workspace, "approved.txt"))).toBe(true);
  });
});

describe("the attached chat's /model, /resume and /undo (served by the daemon over its socket)", () => {
  const modelOf = (body: unknown) => (body as { model: string }).model;

  it("/model shows the daemon's model and switches the one the next request uses", async () => {
    const fake = await server({ replies: [{ text: "From the other model." }] });
    const { chat } = await attachedChat(fake.url);
    chat.type("/help");
    chat.enter();
    await chat.waitFor(
      (screen) =>
        /^\/model +show the daemon's model; \/model <id> switches it \(Telegram too\)/m.test(screen),
      "the attached help for /model",
    );
    chat.type("/model");
    chat.enter();
    await chat.waitFor(
      (screen) => screen.includes("model: openai-compatible/fake-model;"),
      "the current model",
    );
    chat.type("/model other-model");
    chat.enter();
    const switched = await chat.waitFor(
      (screen) => screen.includes("model: openai-compatible/other-model for this daemon"),
      "the switch",
    );
    expect(switched).toContain("Telegram too, until it restarts");
    chat.type("which model?");
    chat.enter();
    await chat.waitFor((screen) => screen.includes("From the other model."), "the answer");
    expect(fake.chatRequests().map((request) => modelOf(request.body))).toEqual(["other-model"]);
  });

  it("/resume lists the daemon's terminal sessions with their first message and continues the one picked", async () => {
    const fake = await server({
      replies: [{ text: "About apples." }, { text: "About pears." }, { text: "Back to apples." }],
    });
    const { chat } = await attachedChat(fake.url);
    chat.type("tell me about apples");
    chat.enter();
    await chat.waitFor((screen) => screen.includes("About apples."), "the first answer");
    chat.type("/new");
    chat.enter();
    await chat.waitFor((screen) => screen.includes("new session "), "the new session");
    chat.type("tell me about pears");
    chat.enter();
    await chat.waitFor((screen) => screen.includes("About pears."), "the second answer");
    chat.type("/resume");
    chat.enter();
    const listed = await chat.waitFor(
      (screen) => screen.includes("/resume <number> continues one"),
      "the session list",
    );
    expect(listed).toMatch(/ 1\. just now \(current\) — tell me about pears/);
    expect(listed).toMatch(/ 2\. just now — tell me about apples/);
    chat.type("/resume 2");
    chat.enter();
    await chat.waitFor((screen) => screen.includes("resumed the session from just now"), "the resume");
    chat.type("and more?");
    chat.enter();
    await chat.waitFor((screen) => screen.includes("Back to apples."), "the third answer");
    expect(userMessages(fake.chatRequests()[2]?.body)).toEqual(["tell me about apples", "and more?"]);
  });

  it("/undo shows the diff of the last task, asks, and restores the file", async () => {
    const fake = await server({
      replies: [
        {
          toolCalls: [{ name: "write_file", input: { path: "notes.txt", content: "changed by the task\n" } }],
        },
        { text: "Done." },
      ],
    });
    const { chat, daemon } = await attachedChat(fake.url);
    const notes = join(daemon.workspace, "notes.txt");
    writeFileSync(notes, "original\n");
    chat.type("edit my notes");
    chat.enter();
    const asked = await chat.waitFor(
      (screen) => screen.includes("approve? y/s/a/n ›") || screen.includes("✓ completed"),
      "the approval prompt or the end of the task",
    );
    if (asked.includes("approve? y/s/a/n ›")) {
      chat.type("y");
      chat.enter();
    }
    await chat.waitFor((screen) => screen.includes("✓ completed"), "the task's banner");
    expect(readFileSync(notes, "utf8")).toBe("changed by the task\n");
    chat.type("/undo");
    chat.enter();
    const question = await chat.waitFor(
      (screen) => screen.includes("[yes / no]") && screen.includes("answer ›"),
      "the restore question",
    );
    expect(question).toContain("-original");
    expect(question).toContain("+changed by the task");
    expect(question).toMatch(/\? Restore 1 file\(s\) to how they were before task [0-9a-f]{8}\?/);
    chat.type("yes");
    chat.enter();
    await chat.waitFor((screen) => screen.includes("restored notes.txt"), "the restore");
    expect(readFileSync(notes, "utf8")).toBe("original\n");
    chat.type("/undo");
    chat.enter();
    await chat.waitFor(
      (screen) => /cannot undo task [0-9a-f]{8}: this task was already undone/.test(screen),
      "the refusal to undo twice",
    );
  });
});

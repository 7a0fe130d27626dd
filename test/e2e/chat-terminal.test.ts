import { describe, expect, it } from "vitest";
import { fastRetryConfig, makeHome, providerEnv } from "../helpers/cli.js";
import { useFakeServers } from "../helpers/fake-servers.js";
import { type TmuxChat, userMessages, useTmuxChats } from "../helpers/tmux.js";

const server = useFakeServers();
const openChat = useTmuxChats();

function startChat(url: string, env: Record<string, string> = {}): TmuxChat {
  const { home, userHome, workspace } = makeHome(fastRetryConfig);
  return openChat({ home, userHome, cwd: workspace, env: providerEnv(url, env) });
}

const lastUserMessage = (body: unknown): unknown => userMessages(body).at(-1);

describe("mercury chat in a real terminal (tmux)", () => {
  it("a multi-line bracketed paste arrives as ONE message", async () => {
    const fake = await server({ replies: [{ text: "Got three lines." }] });
    const chat = startChat(fake.url);
    await chat.waitFor((screen) => screen.includes("/help for commands"), "the welcome line");
    chat.paste("alpha\nbeta\ngamma");
    await chat.waitFor(
      (screen) => screen.includes("[paste #1, 3 lines]"),
      "the paste token on the input line",
    );
    chat.enter();
    await chat.waitFor((screen) => screen.includes("Got three lines."), "the answer");
    expect(fake.chatRequests()).toHaveLength(1);
    expect(lastUserMessage(fake.chatRequests()[0]?.body)).toBe("alpha\nbeta\ngamma");
  });

  it("a slow model shows the spinner with elapsed time and activity, then the answer", async () => {
    const fake = await server({ replies: [{ text: "Finally here." }] });
    const held = fake.hold();
    const chat = startChat(fake.url);
    await chat.waitFor((screen) => screen.includes("/help for commands"), "the welcome line");
    chat.type("hello");
    chat.enter();
    await held.arrived;
    const spinning = await chat.waitFor((screen) => /thinking \d+s/.test(screen), "the spinner");
    expect(spinning).toMatch(/[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] thinking \d+s/);
    held.release();
    const done = await chat.waitFor((screen) => screen.includes("✓ responded"), "the answer and banner");
    expect(done).toContain("Finally here.");
    await chat.waitFor(
      (screen) => !/thinking \d+s/.test(screen.split("\n").filter(Boolean).at(-1) ?? ""),
      "the spinner gone",
    );
  });

  it("renders Markdown instead of printing the markup", async () => {
    const fake = await server({
      replies: [
        {
          text: "# Plan\n\nSome **bold words** and `inline code`.\n\n```\nconst x = 1;\n```\n\n- first item\n",
        },
      ],
    });
    const chat = startChat(fake.url);
    await chat.waitFor((screen) => screen.includes("/help for commands"), "the welcome line");
    chat.type("show me");
    chat.enter();
    const screen = await chat.waitFor((text) => text.includes("✓ responded"), "the rendered answer");
    expect(screen).toContain("Some bold words and inline code.");
    expect(screen).not.toContain("**bold words**");
    expect(screen).not.toContain("```");
    expect(screen).toContain("const x = 1;");
    // The heading is styled (bold, coloured), not marked up with "#".
    expect(screen).toMatch(/^Plan$/m);
    expect(screen).toMatch(/\* first item/);
  });

  it("a notice is printed above the prompt and leaves the line being typed intact", async () => {
    const fake = await server({ replies: [{ text: "Answer after the wait." }] });
    const held = fake.hold();
    // The stall watchdog's pulse is a background notice that arrives while the user is typing.
    const chat = startChat(fake.url, { MERCURY_STALL_SOFT_MS: "300", MERCURY_STALL_HARD_MS: "600000" });
    await chat.waitFor((screen) => screen.includes("/help for commands"), "the welcome line");
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
    expect(noticeLine).toBeGreaterThanOrEqual(0);
    expect(inputLine).toBeGreaterThan(noticeLine);
    expect(lines[inputLine]).toMatch(/› half-typed words$/);
    held.release();
  });

  it("Ctrl+C stops the running task and the prompt comes back", async () => {
    const fake = await server({ replies: [{ hang: true }, { text: "Next one answered." }] });
    const chat = startChat(fake.url);
    await chat.waitFor((screen) => screen.includes("/help for commands"), "the welcome line");
    chat.type("a long job");
    chat.enter();
    // Stopped once its request is at the model (the hanging reply is taken), not before it is sent.
    await chat.waitFor(
      (screen) => /thinking \d+s/.test(screen) && fake.chatRequests().length === 1,
      "the spinner and the request at the model",
    );
    chat.key("C-c");
    await chat.waitFor((screen) => screen.includes("■ cancelled"), "the task cancelled");
    chat.type("next");
    chat.enter();
    await chat.waitFor((screen) => screen.includes("Next one answered."), "the next answer");
    expect(chat.exitStatus()).toBeNull();
  });
});

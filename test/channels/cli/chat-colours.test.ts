import { afterEach, describe, expect, it } from "vitest";
import { fastRetryConfig, makeHome, providerEnv } from "../../helpers/cli.js";
import { useFakeServers } from "../../helpers/fake-servers.js";
import { colourAt, TmuxChat } from "../../helpers/tmux.js";

/**
 * Colours that mean something, as a real terminal receives them: tmux's `capture-pane -e` shows the
 * SGR codes (31 red = failure, 33 yellow = warning, 32 green = success).
 */
const server = useFakeServers();
const open: TmuxChat[] = [];
afterEach(() => {
  for (const chat of open.splice(0)) chat.close();
});

const flaky = { error: { status: 500, message: "upstream overloaded", retryAfterSeconds: 0 } };

describe("chat colours in a real terminal (tmux)", () => {
  it("a retry is a yellow warning; a task whose provider keeps failing ends in a red failure", async () => {
    const fake = await server({ replies: [flaky, { text: "Recovered fine." }, flaky, flaky, flaky] });
    const { home, userHome, workspace } = makeHome(fastRetryConfig);
    const chat = new TmuxChat({ home, userHome, cwd: workspace, env: providerEnv(fake.url) });
    open.push(chat);
    await chat.waitFor((screen) => screen.includes("/help for commands"), "the welcome line");

    chat.type("first");
    chat.enter();
    const warned = await chat.waitForColored(
      (screen) => screen.includes("Recovered fine.") && screen.includes("✓ responded"),
      "the retry warning and the answer",
    );
    expect(colourAt(warned, "↻ openai-compatible:")).toBe(33);
    expect(colourAt(warned, "✓ responded")).toBe(32);

    chat.type("second");
    chat.enter();
    const failed = await chat.waitForColored((screen) => screen.includes("✗ failed"), "the failure banner");
    expect(colourAt(failed, "every provider failed")).toBe(31);
    expect(colourAt(failed, "✗ failed")).toBe(31);
  });
});

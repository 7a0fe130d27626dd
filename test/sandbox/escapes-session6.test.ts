import { type ChildProcess, spawn } from "node:child_process";
import { mkdir, readFile, writeFile } from "node:fs/promises";
import { createServer, type Server } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { linuxSandboxTools } from "../../src/sandbox/detect.js";
import { bwrapSizesTmpfs } from "../../src/sandbox/tmpfs-size.js";
import { defaultSandboxLimits, type SandboxLimits } from "../../src/sandbox/types.js";
import { scrubbedEnv } from "../../src/tools/process-group.js";
import { createRunCommandTool } from "../../src/tools/run-command.js";
import { fakeContext } from "../tools/helpers.js";
import {
  BASHRC_TEXT,
  type FakeUser,
  hostPidsWith,
  makeFakeUser,
  requireSandbox,
  SSH_KEY_TEXT,
  waitFor,
} from "./fixture.js";

/**
 * Red-team pass 6 against the second wall alone: the authorizer allows everything and each command
 * runs in the real bubblewrap sandbox, in a fake home with planted secrets. Nested namespaces
 * (`unshare -rm`), other spellings of paths outside the workspace, agent sockets, host processes,
 * the terminal, memory-backed folders and background survivors.
 */
let user: FakeUser;
let hostSleeper: ChildProcess;
let credentialServer: Server;
let abstractServer: Server;
let loopbackServer: Server;
let loopbackPort = 0;
const connections: string[] = [];
const MYLOGIN_TEXT = "mysql-login-fake-6a1f";
const CONFIGSTORE_TEXT = "firebase-refresh-token-fake-77c0";
const ENV_MARKER = "host-env-marker-s6-41d2";
const abstractName = `\0mercury-s6-${process.pid}`;

function listen(server: Server, where: string | { port: number; host: string }): Promise<void> {
  return new Promise((listening) => {
    if (typeof where === "string") server.listen(where, listening);
    else server.listen(where.port, where.host, listening);
  });
}

function close(server: Server | undefined): Promise<void> {
  return new Promise((closed) => (server ? server.close(() => closed()) : closed()));
}

beforeAll(async () => {
  requireSandbox();
  user = await makeFakeUser();
  await writeFile(join(user.home, ".mylogin.cnf"), `${MYLOGIN_TEXT}\n`);
  await mkdir(join(user.home, ".config", "configstore"), { recursive: true });
  await writeFile(join(user.home, ".config", "configstore", "firebase-tools.json"), `${CONFIGSTORE_TEXT}\n`);
  await mkdir(join(user.home, ".cache", "git", "credential"), { recursive: true });
  const record = (name: string) => (socket: import("node:net").Socket) => {
    connections.push(name);
    socket.end("password=fake\n");
  };
  credentialServer = createServer(record("credential"));
  await listen(credentialServer, join(user.home, ".cache", "git", "credential", "socket"));
  abstractServer = createServer(record("abstract"));
  await listen(abstractServer, abstractName);
  loopbackServer = createServer(record("loopback"));
  await listen(loopbackServer, { port: 0, host: "127.0.0.1" });
  const address = loopbackServer.address();
  loopbackPort = typeof address === "object" && address ? address.port : 0;
  // A host process with a marker in its environment (not Mercury's: the command's own env is scrubbed from it).
  hostSleeper = spawn("sleep", ["600"], {
    stdio: "ignore",
    env: { PATH: "/usr/bin:/bin", MERCURY_S6_MARKER: ENV_MARKER },
  });
});

afterAll(async () => {
  hostSleeper?.kill("SIGKILL");
  await close(credentialServer);
  await close(abstractServer);
  await close(loopbackServer);
  await user?.cleanup();
});

async function run(command: string, limits: SandboxLimits = defaultSandboxLimits): Promise<string> {
  const tool = createRunCommandTool({
    killGraceMs: 300,
    env: { ...scrubbedEnv(), HOME: user.home, MERCURY_HOME: user.mercuryHome },
    sandbox: { userHome: user.home, require: true, limits },
  });
  const result = await tool.execute(
    { command },
    fakeContext({ cwd: user.workspace, home: user.mercuryHome }, "allow"),
  );
  return result.ok ? result.output : result.error;
}

describe("writes outside the workspace, by other spellings and from nested namespaces", () => {
  it.each([
    ['echo x >> "/proc/self/root$HOME/.bashrc"'],
    ['echo x >> "//$HOME//./.bashrc"'],
    ["echo x >> ../.bashrc"],
    ["ln ~/.bashrc hl 2>&1; echo x >> hl"],
    [`python3 -c "open('$HOME/.bashrc','a').write('x')"`],
    [
      "unshare -rm sh -c 'mount -o remount,rw / 2>&1; mount -o remount,rw \"$HOME\" 2>&1; echo x >> ~/.bashrc' 2>&1",
    ],
    ["unshare -rm sh -c 'mount -t tmpfs none \"$HOME\" 2>&1; echo x > ~/planted' 2>&1"],
  ])("leaves the home folder alone: %s", async (command) => {
    await run(command);
    expect(await readFile(join(user.home, ".bashrc"), "utf8")).toBe(BASHRC_TEXT);
    await expect(readFile(join(user.home, "planted"), "utf8")).rejects.toThrow(/ENOENT/);
  });
});

describe("reads of planted secrets", () => {
  it.each([
    ["cat ~/.mylogin.cnf", MYLOGIN_TEXT],
    ["cat ~/.config/configstore/firebase-tools.json", CONFIGSTORE_TEXT],
    ['cat "/proc/self/root$HOME/.mylogin.cnf"', MYLOGIN_TEXT],
    [
      "unshare -rm sh -c 'umount ~/.ssh 2>&1; umount -l ~/.ssh 2>&1; cat ~/.ssh/id_rsa' 2>&1",
      SSH_KEY_TEXT.split("\n")[1] ?? "",
    ],
    ["unshare -rm sh -c 'umount -l ~/.mylogin.cnf 2>&1; cat ~/.mylogin.cnf' 2>&1", MYLOGIN_TEXT],
    ["grep -a MERCURY_S6 /proc/*/environ 2>/dev/null; cat /proc/1/environ | tr '\\0' '\\n'", ENV_MARKER],
  ])("does not show it: %s", async (command, secret) => {
    expect(secret).not.toBe("");
    expect(await run(command)).not.toContain(secret);
  });
});

describe("sockets, the network and host processes", () => {
  const connect = (target: string) =>
    `python3 -c "import socket; s=socket.socket(socket.AF_UNIX); s.connect(${target}); print('connected', s.recv(64))" 2>&1`;

  it("cannot reach a credential agent's socket in the home folder", async () => {
    const output = await run(connect(`'${join(user.home, ".cache", "git", "credential", "socket")}'`));
    expect(output).not.toContain("connected");
    expect(connections).not.toContain("credential");
  });

  it("cannot reach a host's abstract unix socket", async () => {
    const output = await run(connect(`'\\0${abstractName.slice(1)}'`));
    expect(output).not.toContain("connected");
    expect(connections).not.toContain("abstract");
  });

  it("cannot reach a loopback server through /dev/tcp or python", async () => {
    const output = await run(
      `bash -c 'echo hi > /dev/tcp/127.0.0.1/${loopbackPort}' 2>&1; python3 -c "import socket; socket.create_connection(('127.0.0.1', ${loopbackPort}), 2); print('connected')" 2>&1`,
    );
    expect(output).not.toContain("connected");
    expect(connections).not.toContain("loopback");
  });

  it("cannot signal a process outside the sandbox", async () => {
    const pid = hostSleeper.pid as number;
    const output = await run(`kill -9 ${pid} 2>&1; echo "rc=$?"; ls /proc | grep -c '^[0-9]'`);
    expect(output).toMatch(/rc=[1-9]/);
    expect(() => process.kill(pid, 0)).not.toThrow();
  });

  it("cannot push keystrokes into a terminal (TIOCSTI)", async () => {
    const output = await run(
      `python3 -c "import fcntl,termios,os; fd=os.open('/dev/tty', os.O_RDWR); fcntl.ioctl(fd, termios.TIOCSTI, b'x'); print('injected')" 2>&1`,
    );
    expect(output).not.toContain("injected");
  });

  it("leaves no background process behind (setsid, nohup, disown, double fork)", async () => {
    const marker = "876.5432";
    await run(
      `setsid -f sleep ${marker}; nohup sleep ${marker} >/dev/null 2>&1 & disown; (sleep ${marker} >/dev/null 2>&1 &); echo started`,
    );
    expect(await waitFor(async () => (await hostPidsWith(marker)).length === 0)).toBe(true);
  });
});

describe("the workspace repository's hooks", () => {
  it("cannot be written from inside, while commits still work", async () => {
    const init = await run("git init -q . && ls .git/hooks | head -1; echo inited");
    expect(init).toContain("inited");
    const output = await run(
      "printf '#!/bin/sh\\nid\\n' > .git/hooks/pre-commit 2>&1; python3 -c \"open('.git/hooks/post-checkout','w').write('id')\" 2>&1; " +
        "git -c user.email=a@b.c -c user.name=t commit -q --allow-empty -m probe 2>&1; git log --oneline | wc -l",
    );
    expect(output).toMatch(/Read-only file system/);
    expect(output).toMatch(/^1$/m);
    await expect(readFile(join(user.workspace, ".git", "hooks", "pre-commit"), "utf8")).rejects.toThrow(
      /ENOENT/,
    );
    await expect(readFile(join(user.workspace, ".git", "hooks", "post-checkout"), "utf8")).rejects.toThrow(
      /ENOENT/,
    );
  });
});

describe("memory-backed folders have a size", () => {
  it("runs on a bubblewrap that sizes a tmpfs (CI's Debian bwrap does)", () => {
    const tools = linuxSandboxTools();
    expect(tools).not.toBeNull();
    expect(bwrapSizesTmpfs(tools?.bwrap ?? "bwrap")).toBe(true);
  });

  it.each([["/tmp"], ["/dev/shm"]])("stops filling %s past its size with many files", async (folder) => {
    const limits = { ...defaultSandboxLimits, tmpBytes: 8 * 1024 ** 2 };
    const output = await run(
      `i=0; while [ $i -lt 6 ]; do head -c 2097152 /dev/zero > ${folder}/f$i || break; i=$((i+1)); done 2>&1; echo "wrote $i"`,
      limits,
    );
    // 8 MiB hold four 2 MiB files; the fifth finds the folder full (each file is far under fileSizeBytes).
    expect(output).toMatch(/No space left on device/);
    expect(output).toMatch(/wrote [0-4]\b/);
  });
});

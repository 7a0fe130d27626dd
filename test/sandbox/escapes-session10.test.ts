import { spawn } from "node:child_process";
import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  statfsSync,
  writeFileSync,
} from "node:fs";
import { createServer, type Server } from "node:net";
import { join, resolve } from "node:path";
import Database from "better-sqlite3";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { detectSandbox } from "../../src/sandbox/detect.js";
import { environmentLocations } from "../../src/sandbox/environment-locations.js";
import { defaultSandboxLimits, type SandboxLimits } from "../../src/sandbox/types.js";
import { sandboxProgramLaunch } from "../../src/sandbox/wrap.js";
import { scrubbedEnv } from "../../src/tools/process-group.js";
import { createRunCommandTool } from "../../src/tools/run-command.js";
import { fakeContext } from "../tools/helpers.js";
import { type FakeUser, hostPidsWith, makeFakeUser, requireSandbox, waitFor } from "./fixture.js";

/**
 * Red-team pass 10 against the second wall alone: the authorizer allows everything (as `--yes`
 * does) and each command runs in the real bubblewrap sandbox, in a fake home under /var/tmp.
 */
let user: FakeUser;
const servers: Server[] = [];
const connections: string[] = [];

beforeAll(async () => {
  requireSandbox();
  user = await makeFakeUser();
});
afterAll(async () => {
  for (const server of servers) await new Promise((closed) => server.close(() => closed(undefined)));
  await user?.cleanup();
});

async function run(command: string, cwd = user.workspace, limits: SandboxLimits = defaultSandboxLimits) {
  const tool = createRunCommandTool({
    killGraceMs: 300,
    env: { ...scrubbedEnv(), HOME: user.home, MERCURY_HOME: user.mercuryHome },
    sandbox: { userHome: user.home, require: true, limits },
  });
  const result = await tool.execute({ command }, fakeContext({ cwd, home: user.mercuryHome }, "allow"));
  return { ok: result.ok, text: result.ok ? result.output : result.error };
}

/** A host service on a unix socket that answers every connection with `name`. */
async function hostService(path: string, name: string): Promise<void> {
  const server = createServer((socket) => {
    connections.push(name);
    socket.end(`${name}-answered\n`);
  });
  await new Promise((listening) => server.listen(path, () => listening(undefined)));
  servers.push(server);
}

/** Sets variables in Mercury's own environment for one test. */
async function withEnvironment<T>(variables: Record<string, string>, body: () => Promise<T>): Promise<T> {
  const before = Object.fromEntries(Object.keys(variables).map((name) => [name, process.env[name]]));
  Object.assign(process.env, variables);
  try {
    return await body();
  } finally {
    for (const [name, value] of Object.entries(before)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  }
}

const connectAll = (paths: string[]) =>
  `python3 -c "
import socket, sys
for path in sys.argv[1:]:
    s = socket.socket(socket.AF_UNIX)
    try:
        s.connect(path); print('connected', s.recv(64).decode().strip())
    except OSError as error:
        print('refused', path, error.errno)
" ${paths.map((path) => `'${path}'`).join(" ")} 2>&1`;

describe("sockets and credential files that Mercury's environment names, outside the known list", () => {
  it("an ssh-agent, a Neovim server, tmux, a Docker engine and a session bus at unusual paths cannot be reached", async () => {
    const sockets = join(user.home, ".local", "state");
    mkdirSync(sockets, { recursive: true });
    const agent = join(sockets, "agent.sock");
    const nvim = join(user.home, "nvim-server.sock");
    const tmux = join(sockets, "tmux-default");
    const docker = join(sockets, "docker.sock");
    const bus = join(sockets, "bus");
    await hostService(agent, "ssh-agent");
    await hostService(nvim, "nvim");
    await hostService(tmux, "tmux");
    await hostService(docker, "docker");
    await hostService(bus, "dbus");
    const variables = {
      SSH_AUTH_SOCK: agent,
      NVIM: nvim,
      TMUX: `${tmux},4242,0`,
      DOCKER_HOST: `unix://${docker}`,
      DBUS_SESSION_BUS_ADDRESS: `unix:path=${bus},guid=0123`,
    };
    expect(environmentLocations(variables).sort()).toEqual([agent, bus, docker, nvim, tmux].sort());
    const result = await withEnvironment(variables, () => run(connectAll([agent, nvim, tmux, docker, bus])));
    expect(result.text).not.toContain("answered");
    expect(result.text.match(/refused/g)).toHaveLength(5);
    expect(connections).toEqual([]);
  });

  it("a service-account key and a kubeconfig named by variables cannot be read; the project still can", async () => {
    const keys = join(user.home, "keys");
    mkdirSync(keys, { recursive: true });
    const serviceAccount = join(keys, "sa-prod.json");
    const kubeconfig = join(user.home, "clusters.yaml");
    writeFileSync(serviceAccount, '{"private_key": "gcp-key-s10-5e1"}\n');
    writeFileSync(kubeconfig, "token: kube-token-s10-9a0\n");
    const result = await withEnvironment(
      { GOOGLE_APPLICATION_CREDENTIALS: serviceAccount, KUBECONFIG: `${kubeconfig}:/nonexistent/config` },
      () => run(`cat '${serviceAccount}' '${kubeconfig}' README.md 2>&1`),
    );
    expect(result.text).not.toContain("gcp-key-s10");
    expect(result.text).not.toContain("kube-token-s10");
    expect(result.text).toContain("project readme");
  });

  it("a variable naming a folder that holds the workspace hides nothing the command was given", async () => {
    // GNUPGHOME set to the home folder: hiding it would hide the project too, so it is left as it is.
    const result = await withEnvironment({ GNUPGHOME: user.home, XDG_RUNTIME_DIR: user.root }, () =>
      run("cat README.md && echo written > out.txt && cat out.txt"),
    );
    expect(result.ok, result.text).toBe(true);
    expect(result.text).toContain("project readme");
    expect(result.text).toContain("written");
  });
});

describe("filling the disk that holds the workspace and Mercury's home", () => {
  const freeBytes = () => {
    const info = statfsSync(user.workspace);
    return info.bavail * info.bsize;
  };

  it("a command that takes the disk below the floor is stopped and told why", async () => {
    // The floor is put 256 MiB under what is free now; the command allocates 512 MiB, then waits.
    const floor = freeBytes() - 256 * 1024 ** 2;
    const fill = join(user.workspace, "fill.bin");
    try {
      const result = await run(
        "fallocate -l 512M fill.bin && echo allocated && exec sleep 600",
        user.workspace,
        { ...defaultSandboxLimits, diskFloorBytes: floor },
      );
      expect(result.ok).toBe(false);
      expect(result.text).toContain("allocated");
      expect(result.text).toMatch(/Stopped: the disk holding .* fell to \d+ MiB free/);
      expect(result.text).toContain("Remove what the command wrote");
    } finally {
      if (existsSync(fill)) rmSync(fill);
    }
  });

  it("ordinary writes well above the floor run to the end", async () => {
    const result = await run(
      "head -c 1048576 /dev/zero > one-mib.bin && wc -c < one-mib.bin && rm one-mib.bin",
    );
    expect(result.ok, result.text).toBe(true);
    expect(result.text).toContain("1048576");
  });
});

describe("the user's terminal", () => {
  it("Mercury in a real terminal: the command gets no handle on it, and TIOCSTI is refused even on a terminal of its own", async () => {
    // The host allows TIOCSTI (dev.tty.legacy_tiocsti=1 here), so only the sandbox stands in the way.
    const attack = join(user.root, "tiocsti.py");
    writeFileSync(
      attack,
      `import fcntl, os, pty, termios
def inject(fd, label):
    try:
        fcntl.ioctl(fd, termios.TIOCSTI, b"x")
        print("INJECTED", label)
    except OSError as error:
        print("refused", label, error.errno)
for fd in range(0, 64):
    try:
        os.fstat(fd)
    except OSError:
        continue
    inject(fd, "fd%d" % fd)
try:
    inject(os.open("/dev/tty", os.O_RDWR), "/dev/tty")
except OSError as error:
    print("no /dev/tty", error.errno)
# A terminal of its own, made its controlling one: the kernel alone would allow TIOCSTI on it.
main, secondary = pty.openpty()
name = os.ttyname(secondary)
os.setsid()
own = os.open(name, os.O_RDWR)
inject(own, "own-pty")
`,
    );
    const resultFile = join(user.root, "tiocsti-result.json");
    const pendingFile = join(user.root, "tiocsti-pending.txt");
    const driver = join(user.root, "mercury-in-a-terminal.mts");
    writeFileSync(
      driver,
      `import { writeFileSync } from "node:fs";
import { createRunCommandTool } from ${JSON.stringify(resolve("src/tools/run-command.ts"))};
import { scrubbedEnv } from ${JSON.stringify(resolve("src/tools/process-group.ts"))};
const run = createRunCommandTool({ env: { ...scrubbedEnv(), HOME: ${JSON.stringify(user.home)} }, sandbox: { userHome: ${JSON.stringify(user.home)}, require: true } });
const result = await run.execute({ command: ${JSON.stringify(`python3 ${attack} 2>&1; echo "tty: $(tty)"`)} }, {
  signal: new AbortController().signal, cwd: ${JSON.stringify(user.workspace)}, home: ${JSON.stringify(user.mercuryHome)},
  sessionId: "s", taskId: "t", userKey: "owner", authorize: async () => ({ allowed: true, rule: "test.allow" }), reportActivity: () => {},
});
writeFileSync(${JSON.stringify(resultFile)}, JSON.stringify({ mercuryHasTerminal: process.stdin.isTTY === true, result }));
`,
    );
    // After Mercury, the terminal's input queue is read: an injection would be waiting there.
    const pending = `import fcntl, termios, struct; open(${JSON.stringify(pendingFile)}, "w").write(str(struct.unpack("i", fcntl.ioctl(0, termios.FIONREAD, b"\\0\\0\\0\\0"))[0]))`;
    const inner = `${process.execPath} --import tsx ${driver}; python3 -c '${pending}'`;
    const child = spawn("script", ["-q", "-e", "-c", inner, "/dev/null"], {
      cwd: resolve("."),
      stdio: ["ignore", "pipe", "pipe"],
    });
    let output = "";
    child.stdout?.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.stderr?.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    const code = await new Promise<number | null>((done) => child.on("close", done));
    expect(code, output).toBe(0);
    const { mercuryHasTerminal, result } = JSON.parse(readFileSync(resultFile, "utf8")) as {
      mercuryHasTerminal: boolean;
      result: { ok: boolean; output?: string; error?: string };
    };
    const text = result.output ?? result.error ?? "";
    expect(mercuryHasTerminal).toBe(true);
    expect(text).not.toContain("INJECTED");
    expect(text).toContain("refused own-pty 1");
    expect(text).toContain("tty: not a tty");
    expect(readFileSync(pendingFile, "utf8")).toBe("0");
  });
});

describe("Mercury's own git calls and MCP servers (sandboxProgramLaunch) are held by cgroups too", () => {
  /** Mercury's own group per v1 controller (or "" for v2), as the host sees it. */
  const groupsOf = (pid: number) =>
    new Map(
      readFileSync(`/proc/${pid}/cgroup`, "utf8")
        .trim()
        .split("\n")
        .map((line) => {
          const [, controllers = "", path = ""] = /^\d+:([^:]*):(.*)$/.exec(line) ?? [];
          return [controllers, path] as const;
        }),
    );
  const memoryFolder = (pid: number) => {
    const path = groupsOf(pid).get("memory");
    return path === undefined ? null : join("/sys/fs/cgroup/memory", path);
  };
  const canMakeMemoryGroups = () => {
    const own = memoryFolder(process.pid);
    return own !== null && existsSync(join(own, "cgroup.procs"));
  };

  function launch(argv: string[], limits: SandboxLimits) {
    return sandboxProgramLaunch(
      argv,
      {
        workspace: user.workspace,
        cwd: user.workspace,
        userHome: user.home,
        mercuryHome: user.mercuryHome,
        network: false,
        limits,
      },
      detectSandbox(),
    );
  }

  it("a long-running program (an MCP server) sits in a memory group of its own with the limit, and it is removed when the program ends", async () => {
    if (!canMakeMemoryGroups()) return;
    const limits = { ...defaultSandboxLimits, totalMemoryBytes: 3 * 1024 ** 3 };
    const { file, args } = launch(["/bin/sh", "-c", "echo ready; read line; echo got $line"], limits);
    const child = spawn(file, args, { stdio: ["pipe", "pipe", "pipe"] });
    let output = "";
    let group = "";
    const ready = new Promise<void>((resolved) => {
      child.stdout.on("data", (chunk: Buffer) => {
        output += chunk.toString();
        if (output.includes("ready")) resolved();
      });
    });
    child.stderr.on("data", (chunk: Buffer) => {
      output += chunk.toString();
    });
    await ready;
    group = memoryFolder(child.pid as number) ?? "";
    expect(group).toMatch(new RegExp(`/mercury-${child.pid}-0$`));
    expect(readFileSync(join(group, "memory.limit_in_bytes"), "utf8").trim()).toBe(String(3 * 1024 ** 3));
    // Its stdin is the server's protocol channel: it must reach the program through the shell.
    child.stdin.end("ping\n");
    const code = await new Promise<number | null>((done) => child.on("close", done));
    expect(code, output).toBe(0);
    expect(output).toContain("got ping");
    expect(existsSync(group)).toBe(false);
  });

  it("a program stopped by its caller (a git timeout, a server shut down) ends and its group is removed", async () => {
    if (!canMakeMemoryGroups()) return;
    const { file, args } = launch(["/bin/sh", "-c", "echo ready; exec sleep 600"], defaultSandboxLimits);
    const child = spawn(file, args, { stdio: ["ignore", "pipe", "pipe"] });
    await new Promise<void>((resolved) => {
      child.stdout.on("data", (chunk: Buffer) => {
        if (chunk.toString().includes("ready")) resolved();
      });
    });
    const group = memoryFolder(child.pid as number) ?? "";
    expect(group).toMatch(/mercury-\d+-0$/);
    child.kill("SIGTERM");
    await new Promise((done) => child.on("close", done));
    expect(existsSync(group)).toBe(false);
  });

  it("a program in its groups still dies with Mercury (SIGKILL): the shell between them does not keep it alive", async () => {
    const marker = "876.5431";
    const script = join(user.root, "mercury-with-a-server.mts");
    writeFileSync(
      script,
      `import { spawn } from "node:child_process";
import { sandboxProgramLaunch } from ${JSON.stringify(resolve("src/sandbox/wrap.ts"))};
import { detectSandbox } from ${JSON.stringify(resolve("src/sandbox/detect.ts"))};
import { defaultSandboxLimits } from ${JSON.stringify(resolve("src/sandbox/types.ts"))};
const launch = sandboxProgramLaunch(["/bin/sh", "-c", "sleep ${marker} & sleep ${marker}; wait"], {
  workspace: ${JSON.stringify(user.workspace)}, cwd: ${JSON.stringify(user.workspace)}, userHome: ${JSON.stringify(user.home)},
  mercuryHome: ${JSON.stringify(user.mercuryHome)}, network: false, limits: defaultSandboxLimits,
}, detectSandbox());
// A server that ignores the end of its stdin: only the death of its parent chain stops it.
spawn(launch.file, launch.args, { stdio: "ignore" });
`,
    );
    const mercury = spawn(process.execPath, ["--import", "tsx", script], { stdio: "ignore" });
    const sleeps = async () => (await hostPidsWith(marker, (argv) => argv[0] === "sleep")).length;
    expect(await waitFor(async () => (await sleeps()) === 2)).toBe(true);
    mercury.kill("SIGKILL");
    expect(await waitFor(async () => (await sleeps()) === 0)).toBe(true);
  });

  it("as root, the process count holds for a program too (RLIMIT_NPROC does not bind root)", async () => {
    if (process.getuid?.() !== 0 || !existsSync("/sys/fs/cgroup/pids/cgroup.procs")) return;
    const loop =
      'i=0; while [ $i -lt 300 ]; do sleep 30 >/dev/null 2>&1 & [ $? -eq 0 ] || break; i=$((i+1)); done; echo "started $i"';
    const { file, args } = launch(["/bin/sh", "-c", loop], { ...defaultSandboxLimits, processes: 40 });
    const child = spawn(file, args, { stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    for (const stream of [child.stdout, child.stderr])
      stream.on("data", (chunk: Buffer) => {
        output += chunk.toString();
      });
    await new Promise((done) => child.on("close", done));
    expect(output).toMatch(/Cannot fork|Resource temporarily unavailable/i);
    const started = /started (\d+)/.exec(output);
    if (started) expect(Number(started[1])).toBeLessThan(40);
    expect(readdirSync("/sys/fs/cgroup/pids").filter((name) => name === `mercury-${child.pid}-0`)).toEqual(
      [],
    );
  });
});

describe("descriptors Mercury itself holds open", () => {
  it("the database (and its WAL) and an appended log file do not reach the command", async () => {
    const database = new Database(join(user.mercuryHome, "mercury.db"));
    database.pragma("journal_mode = WAL");
    database.exec(
      "create table if not exists secrets (value text); insert into secrets values ('db-row-s10-71c')",
    );
    const log = openSync(join(user.mercuryHome, "mercury.log"), "a");
    try {
      const result = await run('for fd in /proc/self/fd/*; do echo "$fd -> $(readlink $fd)"; done');
      expect(result.ok, result.text).toBe(true);
      // 0-2, and the descriptor the shell's glob itself opened at most: nothing of Mercury's.
      expect(result.text).not.toMatch(/mercury\.db|mercury\.log/);
      const listed = [...result.text.matchAll(/\/proc\/self\/fd\/(\d+) ->/g)].map((match) =>
        Number(match[1]),
      );
      expect(Math.max(...listed)).toBeLessThanOrEqual(3);
    } finally {
      closeSync(log);
      database.close();
    }
  });
});

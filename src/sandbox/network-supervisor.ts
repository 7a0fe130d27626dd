import type * as ChildProcessModule from "node:child_process";

/** What the supervisor needs; passed as one JSON argument so no shell quoting is involved. */
export interface SupervisorPlan {
  /** `unshare` and its flags, ending before `--`: a new network namespace (and user namespace when not root). */
  unshare: string[];
  /** The `ip` program, run in the new namespace to install the filter routes. */
  ip: string;
  /** `ip -batch` lines: the filter. */
  routes: string;
  slirp4netns: string;
  /** Extra slirp4netns flags (`--enable-sandbox` as root). */
  slirpFlags: string[];
  /** What resolv.conf inside the sandbox says (slirp's DNS forwarder). */
  resolvConf: string;
  /** bwrap and its arguments, reading resolv.conf from fd 5 (`--ro-bind-data 5 …`). */
  bwrap: string[];
}

/**
 * The stage that runs inside the new network namespace: it tells the supervisor it is there (fd 3),
 * waits until slirp4netns has configured the namespace (fd 4), installs the filter routes while it
 * still holds CAP_NET_ADMIN over the namespace, then becomes bwrap, which drops every capability
 * before the command starts. If the routes cannot be installed, the command never starts.
 */
export const NAMESPACE_STAGE = [
  "echo up >&3 || exit 125",
  'read go <&4 || { echo "mercury sandbox: the network filter was not set up; the command did not start" >&2; exit 125; }',
  "exec 3>&- 4<&-",
  'ip="$1"; routes="$2"; shift 2',
  'printf "%s\\n" "$routes" | "$ip" -batch - >&2 || { echo "mercury sandbox: could not install the network filter routes; the command did not start" >&2; exit 125; }',
  'exec "$@"',
].join("\n");

/**
 * The process that starts a sandboxed command with a filtered network. It runs as its own Node
 * process (`node -e`, the source of this function) because an MCP server is spawned by the MCP SDK,
 * which passes only stdio: the supervisor turns one command line into the choreography below.
 * It must be self-contained (no imports; modules come in as arguments), since only its source
 * text travels.
 *
 * 1. `unshare` a new network namespace running NAMESPACE_STAGE, which says "up" once inside;
 * 2. start slirp4netns on that process (`--configure`: tap0, 10.0.2.100/24, default route via
 *    10.0.2.2, DNS forwarder 10.0.2.3; `--disable-host-loopback`); `--exit-fd` is a pipe only this
 *    process holds, so slirp4netns ends when the supervisor does;
 * 3. when slirp4netns says ready, tell the stage to go: it installs the routes and execs bwrap.
 *
 * The command's exit code (or signal) becomes the supervisor's. Signals it receives go to the stage.
 */
export function superviseFilteredNetwork(
  childProcess: typeof ChildProcessModule,
  plan: SupervisorPlan,
  stage: string,
): void {
  const fail = (message: string): void => {
    process.stderr.write(`mercury sandbox: ${message}\n`);
  };
  const [unshare, ...unshareFlags] = plan.unshare;
  const [bwrap, ...bwrapArgs] = plan.bwrap;
  if (!unshare || !bwrap) {
    fail("incomplete network plan");
    process.exit(125);
  }
  const namespace = childProcess.spawn(
    unshare,
    [...unshareFlags, "--", "/bin/sh", "-c", stage, "sh", plan.ip, plan.routes, bwrap, ...bwrapArgs],
    { stdio: ["inherit", "inherit", "inherit", "pipe", "pipe", "pipe"] },
  );
  let slirp: ChildProcessModule.ChildProcess | undefined;
  let slirpErrors = "";
  let released = false;
  // The typings know five stdio slots; the sixth is there (fd 5, bwrap's resolv.conf data).
  const channels = namespace.stdio as unknown as Array<NodeJS.ReadableStream & NodeJS.WritableStream>;
  const [, , , upChannel, goChannel, resolvData] = channels;
  if (!upChannel || !goChannel || !resolvData) {
    fail("the network namespace's channels are missing");
    process.exit(125);
  }
  // A channel whose other end is gone (the stage or slirp4netns ended) resets; that end's exit
  // event is what reports it, so a reset on the channel itself is not a second failure.
  const ignoreReset = (stream: NodeJS.EventEmitter | null | undefined): void => {
    stream?.on("error", (error: NodeJS.ErrnoException) => {
      if (error.code !== "ECONNRESET" && error.code !== "EPIPE") fail(`channel error: ${error.message}`);
    });
  };
  for (const channel of [upChannel, goChannel, resolvData]) ignoreReset(channel);
  resolvData.end(plan.resolvConf);

  const stopSlirp = (): void => {
    if (slirp && slirp.exitCode === null && slirp.signalCode === null) slirp.kill("SIGTERM");
  };
  const abandon = (message: string): void => {
    fail(message);
    if (namespace.exitCode === null && namespace.signalCode === null) namespace.kill("SIGKILL");
    stopSlirp();
  };

  let upText = "";
  upChannel.on("data", (chunk: Buffer) => {
    upText += chunk.toString();
    if (slirp || !upText.includes("up")) return;
    if (namespace.pid === undefined) return abandon("the network namespace has no process id");
    slirp = childProcess.spawn(
      plan.slirp4netns,
      [
        "--configure",
        "--mtu=65520",
        "--disable-host-loopback",
        "--enable-seccomp",
        ...plan.slirpFlags,
        "--ready-fd=3",
        "--exit-fd=4",
        String(namespace.pid),
        "tap0",
      ],
      { stdio: ["ignore", "ignore", "pipe", "pipe", "pipe"] },
    );
    const started = slirp;
    for (const channel of started.stdio) ignoreReset(channel);
    started.stderr?.on("data", (chunk: Buffer) => {
      if (slirpErrors.length < 4000) slirpErrors += chunk.toString();
    });
    (started.stdio[3] as NodeJS.ReadableStream).on("data", () => {
      if (released) return;
      released = true;
      goChannel.end("go\n");
    });
    started.on("error", (error) => abandon(`could not start slirp4netns: ${error.message}`));
    started.on("exit", (code, signal) => {
      if (released) return;
      const detail = slirpErrors
        .split("\n")
        .filter((line) => line.trim() !== "" && !line.includes("experimental"))
        .join("; ");
      abandon(
        `slirp4netns stopped before the network was ready (${signal ?? `exit code ${code}`})${detail ? `: ${detail}` : ""}; the command did not start`,
      );
    });
  });

  namespace.on("error", (error) => {
    fail(`could not start unshare for the network namespace: ${error.message}`);
    stopSlirp();
    process.exit(125);
  });
  for (const signal of ["SIGTERM", "SIGINT", "SIGHUP"] as const) {
    process.on(signal, () => {
      if (namespace.exitCode === null && namespace.signalCode === null) namespace.kill(signal);
    });
  }
  namespace.on("exit", (code, signal) => {
    stopSlirp();
    if (signal) {
      process.removeAllListeners(signal);
      process.kill(process.pid, signal);
      return;
    }
    process.exit(code ?? 125);
  });
}

/** `node -e` source that runs the supervisor with the plan from argv[1]. */
export function supervisorSource(): string {
  return `(${superviseFilteredNetwork.toString()})(require("node:child_process"), JSON.parse(process.argv[1]), ${JSON.stringify(NAMESPACE_STAGE)});`;
}

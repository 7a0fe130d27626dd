import { join } from "node:path";
import { type PathScope, pathFinding } from "./command-paths.js";
import { credentialPrinter } from "./credential-commands.js";
import { protectedWriteTarget } from "./hardline-targets.js";
import type { Finding } from "./shell-words.js";
import { systemDaemonFinding } from "./system-daemons.js";

/**
 * Commands that write a tool's own settings or install programs, where the file they write is not
 * named on the command line. What they leave runs later, outside the sandbox: a repository's
 * `.git/config` (`core.fsmonitor`, `alias.*`, filters run on the user's next `git status`), a
 * template's hooks, the user's `~/.gitconfig` or `~/.npmrc`, a program installed on PATH. The file
 * each one writes is judged as a write (`path.git-internals`, `path.outside-roots`, `path.sensitive`).
 */
export function configWriteFindings(program: string, args: string[], scope: PathScope): void {
  const home = scope.context.home;
  const write = (path: string) => {
    const hard = protectedWriteTarget(path, scope.context, scope.fsApi);
    if (hard) scope.add(hard);
    else pathFinding(scope, path, "write", "command.config-write");
  };
  const gitInternals = (why: string) =>
    scope.add({
      decision: "ask",
      rule: "path.git-internals",
      reason: `${why}: what is written there runs later, outside the sandbox, when git or the user runs git; only a person approves it`,
    });
  const printed = credentialPrinter(program, args);
  if (printed) scope.add(printed);
  const control = mercuryControl(program, args);
  if (control) scope.add(control);
  const daemon = containerDaemon(program, args) ?? systemDaemonFinding(program, args);
  if (daemon) scope.add(daemon);
  switch (program) {
    case "git": {
      const { sub, rest } = gitSubcommand(args);
      if (sub === "config") {
        const target = gitConfigWriteTarget(rest);
        if (target === null) return;
        if (target.scope === "global") write(join(home, ".gitconfig"));
        else if (target.scope === "system") write("/etc/gitconfig");
        else if (target.scope === "file") write(target.file);
        else gitInternals(`git config ${rest.join(" ")} writes the repository's configuration`);
      }
      if ((sub === "init" || sub === "clone") && rest.some((arg) => /^--template(=|$)/.test(arg)))
        gitInternals(`git ${sub} --template copies hooks and configuration into the new repository's .git`);
      if (sub === "clone" && rest.some((arg) => /^(-c|--config)(=|$)|^-c./.test(arg)))
        gitInternals("git clone --config writes settings into the new repository's .git/config");
      return;
    }
    case "npm":
    case "pnpm":
    case "yarn": {
      const operands = args.filter((arg) => !arg.startsWith("-"));
      const setting =
        (operands[0] === "config" && /^(set|delete|rm|edit|fix)$/.test(operands[1] ?? "")) ||
        (operands[0] === "set" && program !== "yarn");
      if (setting) {
        const location = optionValue(args, ["--location", "-L"]);
        const userconfig = optionValue(args, ["--userconfig"]);
        if (userconfig) write(userconfig);
        else if (location === "project") write(".npmrc");
        else if (program === "npm") write(join(home, ".npmrc"));
        else if (program === "pnpm") write(join(home, ".config", "pnpm", "rc"));
        else write(join(home, ".yarnrc"));
      }
      const global = args.some((arg) => arg === "-g" || arg === "--global" || arg === "--location=global");
      const installs = /^(install|i|add|link|ln|update|up|uninstall|remove|rm)$/.test(operands[0] ?? "");
      if ((installs && global) || (program === "yarn" && operands[0] === "global"))
        installsOutside(scope, `${program} ${args.join(" ")}`);
      return;
    }
    case "pip":
    case "pip3": {
      const operands = args.filter((arg) => !arg.startsWith("-"));
      if (operands[0] === "config" && /^(set|unset|edit)$/.test(operands[1] ?? "")) {
        if (args.includes("--global")) write("/etc/xdg/pip/pip.conf");
        else if (!args.includes("--site")) write(join(home, ".config", "pip", "pip.conf"));
      }
      if (operands[0] === "install" && args.includes("--user"))
        installsOutside(scope, `${program} install --user`);
      return;
    }
    case "pipx":
    case "cargo":
    case "gem": {
      const operands = args.filter((arg) => !arg.startsWith("-"));
      if (operands[0] === "install") installsOutside(scope, `${program} install`);
      return;
    }
    case "go": {
      if (args[0] === "install") installsOutside(scope, "go install");
      return;
    }
    case "uv": {
      if (args[0] === "tool" && args[1] === "install") installsOutside(scope, "uv tool install");
      return;
    }
  }
}

function installsOutside(scope: PathScope, what: string): void {
  scope.add({
    decision: "ask",
    rule: "path.outside-roots",
    reason: `${what} installs programs outside the workspace (on the user's PATH), where they run later outside the sandbox`,
  });
}

const gitGlobalsWithValue = new Set(["-c", "-C", "--git-dir", "--work-tree", "--namespace", "--config-env"]);

function gitSubcommand(args: string[]): { sub: string | undefined; rest: string[] } {
  let index = 0;
  while (index < args.length && (args[index] as string).startsWith("-")) {
    index += gitGlobalsWithValue.has(args[index] as string) ? 2 : 1;
  }
  return { sub: args[index], rest: args.slice(index + 1) };
}

type ConfigScope = { scope: "global" | "system" | "repository" } | { scope: "file"; file: string };

const configReads =
  /^(--get|--get-all|--get-regexp|--get-urlmatch|--get-color|--get-colorbool|-l|--list|--blob(=.*)?)$/;
const configWrites =
  /^(--add|--unset|--unset-all|--replace-all|--rename-section|--remove-section|-e|--edit)$/;
const configOptionsWithValue = new Set([
  "-f",
  "--file",
  "--blob",
  "--type",
  "--default",
  "--comment",
  "--value",
]);

/** Where `git config …` writes, or null when it only reads. */
function gitConfigWriteTarget(rest: string[]): ConfigScope | null {
  let scope: ConfigScope = { scope: "repository" };
  let writes = false;
  let reads = false;
  const operands: string[] = [];
  for (let index = 0; index < rest.length; index++) {
    const arg = rest[index] as string;
    const equals = arg.indexOf("=");
    const name = arg.startsWith("--") && equals > 0 ? arg.slice(0, equals) : arg;
    if (name === "--global") scope = { scope: "global" };
    else if (name === "--system") scope = { scope: "system" };
    else if (name === "-f" || name === "--file") {
      const file = equals > 0 && arg.startsWith("--") ? arg.slice(equals + 1) : (rest[index + 1] ?? "");
      scope = { scope: "file", file };
    } else if (configReads.test(arg)) reads = true;
    else if (configWrites.test(arg)) writes = true;
    else if (!arg.startsWith("-")) operands.push(arg);
    if (configOptionsWithValue.has(name) && !(arg.startsWith("--") && equals > 0)) index += 1;
  }
  // The subcommand form (git 2.46+): `git config set|unset|edit|rename-section|remove-section …`.
  const verb = operands[0] ?? "";
  if (/^(set|unset|edit|rename-section|remove-section)$/.test(verb)) writes = true;
  else if (/^(get|list)$/.test(verb)) reads = true;
  else if (operands.length >= 2) writes = true;
  return writes && !reads ? scope : null;
}

function optionValue(args: string[], names: string[]): string | undefined {
  for (let index = 0; index < args.length; index++) {
    const arg = args[index] as string;
    for (const name of names) {
      if (arg === name) return args[index + 1];
      if (arg.startsWith(`${name}=`)) return arg.slice(name.length + 1);
    }
  }
  return undefined;
}

const serviceQueries = /^(status|show|cat|is-active|is-enabled|is-failed|list-units|list-unit-files|help)$/;

/**
 * Mercury's own command line and service: `mercury telegram approve`, `mercury memory forget`,
 * `mercury policy …`, `systemctl --user stop mercury`, `pkill mercury`. They read and change its
 * database, settings, approvals and the daemon itself — the agent never grants itself anything or
 * stops its own watchdog, so they are refused like writes into Mercury's folder.
 */
function mercuryControl(program: string, args: string[]): Finding | null {
  const refuse = (what: string): Finding => ({
    decision: "deny",
    rule: "path.mercury-state",
    reason: `${what} changes Mercury's own state, permissions or daemon; only the user runs it`,
  });
  if (program === "mercury") {
    if (args.length === 1 && /^(--version|-V|--help|-h)$/.test(args[0] as string)) return null;
    return refuse(`mercury ${args.join(" ")}`.trim());
  }
  const operands = args.filter((arg) => !arg.startsWith("-"));
  if (
    program === "systemctl" &&
    !serviceQueries.test(operands[0] ?? "") &&
    operands.slice(1).some((unit) => /mercury/i.test(unit))
  )
    return refuse(`systemctl ${operands.join(" ")}`);
  if ((program === "pkill" || program === "killall") && operands.some((name) => /mercury/i.test(name)))
    return refuse(`${program} ${operands.join(" ")}`);
  return null;
}

const containerTools = new Set(["docker", "podman", "nerdctl", "docker-compose", "kubectl", "lxc", "incus"]);
const containerQueries =
  /^(version|info|ps|images|image|inspect|logs|top|stats|events|search|help|get|describe|config)$/;

/**
 * Container tools drive a daemon outside the sandbox, usually as root: `docker run -v /:/h …` reads
 * and writes the whole machine. Anything but a query is a person's call (`command.privilege`).
 */
function containerDaemon(program: string, args: string[]): Finding | null {
  if (!containerTools.has(program)) return null;
  const operands = args.filter((arg) => !arg.startsWith("-"));
  if (operands.length === 0 || containerQueries.test(operands[0] as string)) return null;
  return {
    decision: "ask",
    rule: "command.privilege",
    reason: `${program} ${operands[0]} asks a container daemon outside the sandbox (often running as root) to act`,
  };
}

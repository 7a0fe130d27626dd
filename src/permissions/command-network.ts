import { ownEntry } from "./own-key.js";

/**
 * Which commands need the network, and which hosts they name. The OS sandbox runs commands without
 * network unless a person approved one that needs it; the exfiltration check asks before a task
 * that has read untrusted content contacts a new host.
 */
const alwaysNetworked = new Set([
  "curl",
  "wget",
  "aria2c",
  "http",
  "https",
  "xh",
  "lwp-request",
  "ftp",
  "tftp",
  "sftp",
  "scp",
  "ssh",
  "nc",
  "ncat",
  "netcat",
  "socat",
  "telnet",
  "dig",
  "nslookup",
  "host",
  "ping",
  "traceroute",
  "whois",
  "gh",
  "glab",
  "aws",
  "gcloud",
  "az",
  "kubectl",
  "helm",
  "ollama",
]);

const networkedSubcommands: Record<string, RegExp> = {
  git: /^(fetch|pull|push|clone|ls-remote|remote|submodule|send-email|request-pull|archive)$/,
  npm: /^(install|i|ci|add|update|up|upgrade|publish|audit|view|info|show|outdated|search|login|adduser|exec|x|create|init|dist-tag|deprecate|owner|pack|doctor|ping|whoami|token)$/,
  npx: /./,
  pnpm: /^(install|i|add|update|up|publish|audit|outdated|dlx|create|exec|fetch)$/,
  yarn: /^(install|add|upgrade|up|publish|audit|outdated|dlx|create|npm)$/,
  bun: /^(install|i|add|update|upgrade|x|create|publish)$/,
  bunx: /./,
  pip: /^(install|download|search|index)$/,
  pip3: /^(install|download|search|index)$/,
  pipx: /./,
  uv: /^(pip|sync|add|lock|run|tool)$/,
  uvx: /./,
  poetry: /^(install|add|update|lock|publish)$/,
  cargo: /^(install|fetch|update|publish|search|build|run|test|add)$/,
  go: /^(get|install|mod|build|run|test)$/,
  docker: /^(pull|push|run|build|login|search|compose)$/,
  podman: /^(pull|push|run|build|login|search)$/,
  brew: /^(install|upgrade|update|fetch|tap|search|info)$/,
  "apt-get": /^(install|update|upgrade|download|source|dist-upgrade)$/,
  apt: /^(install|update|upgrade|download|source|full-upgrade)$/,
  gem: /^(install|update|push|fetch|search)$/,
  composer: /^(install|update|require|create-project)$/,
  rsync: /./,
  openssl: /^(s_client|s_time|ocsp)$/,
};

/** General-purpose script interpreters: the program text they are given can do anything, a connection included. */
export const scriptInterpreters = [
  "python",
  "python2",
  "python3",
  "node",
  "nodejs",
  "perl",
  "ruby",
  "php",
  "bun",
] as const;

/** Interpreters whose code may open connections: a URL anywhere in their arguments means network. */
const codeRunners = new Set<string>([...scriptInterpreters, "deno"]);

/** Whether an invocation needs the network: a networked program, or a subcommand that downloads or pushes. */
export function needsNetwork(program: string, args: string[]): boolean {
  if (alwaysNetworked.has(program)) return !args.every((arg) => /^(--version|-V|--help|-h)$/.test(arg));
  const pattern = ownEntry(networkedSubcommands, program);
  if (codeRunners.has(program) && args.some((arg) => /\b(https?|wss?|ftp):\/\/[^\s'"`]/i.test(arg)))
    return true;
  if (!pattern) return args.some((arg) => /^[a-z][a-z0-9+.-]*:\/\//i.test(arg) && !arg.startsWith("file:"));
  if (program === "rsync") return args.some((arg) => /^[^/]*[^/\\]:/.test(arg) || arg.startsWith("rsync://"));
  const sub = args.find((arg) => !arg.startsWith("-"));
  return sub !== undefined && pattern.test(sub);
}

/** Hosts named by URLs and `user@host:path` / `host:path` words. */
export function hostsNamed(args: string[]): string[] {
  const hosts: string[] = [];
  for (const arg of args) {
    // URLs inside code (`urlopen("http://host/x")`) name hosts too.
    if (/\s/.test(arg)) {
      for (const match of arg.matchAll(/\b(?:https?|wss?|ftp):\/\/([A-Za-z0-9.-]+)/gi))
        hosts.push((match[1] as string).toLowerCase());
      continue;
    }
    const value = arg.includes("=") && !arg.includes("://") ? arg.slice(arg.indexOf("=") + 1) : arg;
    try {
      if (/^[a-z][a-z0-9+.-]*:\/\//i.test(value)) {
        const host = new URL(value).hostname.toLowerCase();
        if (host) hosts.push(host);
        continue;
      }
    } catch {
      // Not a URL after all; try the scp form below.
    }
    const scp = /^(?:[^@/\s]+@)?([A-Za-z0-9.-]+\.[A-Za-z]{2,}|\[[0-9a-fA-F:]+\]|\d+\.\d+\.\d+\.\d+):/.exec(
      value,
    );
    if (scp?.[1]) hosts.push(scp[1].toLowerCase());
    const sshTarget = /^[^@/\s-][^@/\s]*@([A-Za-z0-9.-]+)$/.exec(value);
    if (sshTarget?.[1]) hosts.push(sshTarget[1].toLowerCase());
  }
  return hosts;
}

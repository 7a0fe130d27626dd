import type { Finding } from "./shell-words.js";

/**
 * Commands whose job is to print a stored credential: `git credential fill`, `gh auth token`,
 * `aws configure get`, `gcloud auth print-access-token`, `kubectl config view --raw`, keychain and
 * password-store lookups. They are the secret files' contents by another route, so they are refused
 * like reading those files (`path.sensitive`), in every mode.
 */
type Matcher = (operands: string[], args: string[]) => boolean;

const starts =
  (...words: string[]): Matcher =>
  (operands) =>
    words.every((word, index) => operands[index] === word);
const any =
  (...matchers: Matcher[]): Matcher =>
  (operands, args) =>
    matchers.some((matcher) => matcher(operands, args));

const printers: Record<string, Matcher> = {
  git: (_operands, args) => /^credential(-.+)?$/.test(gitSubcommand(args) ?? ""),
  gh: (operands, args) =>
    starts("auth", "token")(operands, args) ||
    (starts("auth", "status")(operands, args) && args.some((arg) => arg === "-t" || arg === "--show-token")),
  aws: any(
    starts("configure", "get"),
    starts("configure", "export-credentials"),
    starts("sts", "get-session-token"),
    starts("ecr", "get-login-password"),
    starts("codeartifact", "get-authorization-token"),
  ),
  gcloud: (operands) =>
    operands.some((word) => /^print-(access|identity)-token$/.test(word)) ||
    starts("config", "config-helper")(operands, []),
  az: any(starts("account", "get-access-token")),
  kubectl: (operands, args) =>
    starts("config", "view")(operands, args) && args.some((arg) => arg === "--raw" || arg === "--flatten"),
  "secret-tool": any(starts("lookup"), starts("search")),
  security: (operands) =>
    /^(find-generic-password|find-internet-password|dump-keychain|export)$/.test(operands[0] ?? ""),
  pass: (operands, args) =>
    !/^(ls|list|find|search|help|version|init|git)$/.test(operands[0] ?? "ls") ||
    args.some((arg) => arg === "-c" || arg === "--clip"),
  gopass: (operands) => /^(show|cat|otp|totp)$/.test(operands[0] ?? ""),
  op: any(starts("read"), starts("inject"), starts("item", "get"), starts("document", "get")),
  vault: any(starts("read"), starts("kv", "get"), starts("token", "lookup"), starts("print", "token")),
  keyctl: (operands) => /^(print|pipe|read)$/.test(operands[0] ?? ""),
  npm: (operands) =>
    starts("token")(operands, []) ||
    (starts("config", "get")(operands, []) && operands.some((word) => /auth|token|password/i.test(word))),
  heroku: (operands) => operands[0] === "auth:token",
  doctl: starts("auth", "token"),
  fly: starts("auth", "token"),
  flyctl: starts("auth", "token"),
  gpg: (_operands, args) => args.some((arg) => /^--export-secret-(sub)?keys$/.test(arg)),
  // /etc/shadow by the name service instead of the path.
  getent: (operands) => /^g?shadow$/.test(operands[0] ?? ""),
  // Desktop keyrings over D-Bus and KDE's wallet, and Docker Desktop's `docker-credential-*` are above.
  kwallet_query: (_operands, args) => args.some((arg) => arg === "-r" || arg === "--read-password"),
  "kwallet-query": (_operands, args) => args.some((arg) => arg === "-r" || arg === "--read-password"),
  lpass: any(starts("show"), starts("export")),
  bw: any(starts("get"), starts("export"), starts("list", "items")),
  rbw: any(starts("get"), starts("list")),
  "keepassxc-cli": any(starts("show"), starts("export"), starts("clip")),
};

export function credentialPrinter(program: string, args: string[]): Finding | null {
  const matcher = Object.hasOwn(printers, program) ? printers[program] : undefined;
  const helper = program.startsWith("docker-credential-") || program.startsWith("git-credential-");
  const operands = args.filter((arg) => !arg.startsWith("-"));
  if (!helper && !matcher?.(operands, args)) return null;
  return {
    decision: "deny",
    rule: "path.sensitive",
    reason:
      `${program} ${args.join(" ")} prints stored credentials; they are off-limits in every mode`.replace(
        /\s+prints/,
        " prints",
      ),
  };
}

const gitGlobalsWithValue = new Set(["-c", "-C", "--git-dir", "--work-tree", "--namespace", "--config-env"]);

function gitSubcommand(args: string[]): string | undefined {
  let index = 0;
  while (index < args.length && (args[index] as string).startsWith("-"))
    index += gitGlobalsWithValue.has(args[index] as string) ? 2 : 1;
  return args[index];
}

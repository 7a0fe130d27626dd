import { basename, join } from "node:path";
import { foldForComparison } from "./unicode.js";

/**
 * Paths that no tool may read or write in any mode, allow-all included. Matching is done on the
 * folded form (see unicode.ts) of both the path as written and its real path.
 *
 * Project `.env` files are not on this list: reading one needs approval (rule "path.env-file"),
 * because a project's own settings are sometimes what the user wants inspected. Mercury's own
 * `.env` holds its API keys and is refused outright.
 */
export interface SensitiveMatch {
  what: string;
}

const browser = "browser profiles (cookies, saved passwords)";
const homeEntries: readonly [string, string][] = [
  [".ssh", "SSH keys and config"],
  [".aws", "AWS credentials"],
  [".gnupg", "GnuPG keys"],
  [".config/gcloud", "Google Cloud credentials"],
  [".kube", "Kubernetes credentials"],
  [".docker/config.json", "Docker registry credentials"],
  [".netrc", "netrc credentials"],
  [".authinfo", "netrc-style credentials"],
  [".authinfo.gpg", "netrc-style credentials"],
  [".npmrc", "npm tokens"],
  [".yarnrc.yml", "yarn registry tokens"],
  [".pypirc", "PyPI tokens"],
  [".pgpass", "PostgreSQL passwords"],
  [".my.cnf", "MySQL passwords"],
  [".git-credentials", "git credentials"],
  [".config/git/credentials", "git credentials"],
  [".config/gh", "GitHub CLI tokens"],
  [".config/hub", "GitHub CLI tokens"],
  [".config/glab-cli", "GitLab CLI tokens"],
  [".cargo/credentials", "Cargo registry tokens"],
  [".cargo/credentials.toml", "Cargo registry tokens"],
  [".gem/credentials", "RubyGems tokens"],
  [".m2/settings-security.xml", "Maven master password"],
  [".m2/settings.xml", "Maven server passwords"],
  [".gradle/gradle.properties", "Gradle credentials"],
  [".terraform.d/credentials.tfrc.json", "Terraform Cloud tokens"],
  [".vault-token", "HashiCorp Vault token"],
  [".config/rclone", "rclone remotes and tokens"],
  [".s3cfg", "S3 credentials"],
  [".boto", "cloud credentials"],
  [".oci", "Oracle Cloud keys"],
  [".config/doctl", "DigitalOcean tokens"],
  [".azure", "Azure credentials"],
  [".config/sops", "SOPS/age keys"],
  [".config/age", "age keys"],
  [".age", "age keys"],
  [".config/op", "1Password CLI"],
  [".config/keybase", "Keybase keys"],
  [".password-store", "pass password store"],
  [".local/share/password-store", "pass password store"],
  [".local/share/keyrings", "desktop keyring"],
  [".local/share/kwalletd", "desktop keyring"],
  [".kde/share/apps/kwallet", "desktop keyring"],
  ["Library/Keychains", "macOS keychains"],
  ["Library/Cookies", "macOS cookies"],
  [".mozilla", browser],
  [".librewolf", browser],
  [".thunderbird", "mail profiles (saved passwords)"],
  [".config/google-chrome", browser],
  [".config/google-chrome-beta", browser],
  [".config/google-chrome-unstable", browser],
  [".config/chromium", browser],
  [".config/BraveSoftware", browser],
  [".config/microsoft-edge", browser],
  [".config/vivaldi", browser],
  [".config/opera", browser],
  ["snap/firefox", browser],
  ["snap/chromium", browser],
  [".var/app/org.mozilla.firefox", browser],
  [".var/app/com.google.Chrome", browser],
  [".var/app/org.chromium.Chromium", browser],
  ["Library/Application Support/Google/Chrome", browser],
  ["Library/Application Support/Chromium", browser],
  ["Library/Application Support/BraveSoftware", browser],
  ["Library/Application Support/Microsoft Edge", browser],
  ["Library/Application Support/Firefox", browser],
  ["Library/Safari", browser],
  [".electrum", "cryptocurrency wallet"],
  [".bitcoin", "cryptocurrency wallet"],
  [".ethereum/keystore", "cryptocurrency wallet"],
  [".config/Signal", "Signal messages and keys"],
  // Shell and REPL histories: tokens and passwords typed on command lines end up here.
  [".bash_history", "shell history (typed tokens and passwords)"],
  [".zsh_history", "shell history (typed tokens and passwords)"],
  [".zhistory", "shell history (typed tokens and passwords)"],
  [".sh_history", "shell history (typed tokens and passwords)"],
  [".history", "shell history (typed tokens and passwords)"],
  [".local/share/fish/fish_history", "shell history (typed tokens and passwords)"],
  [".local/share/atuin", "shell history (typed tokens and passwords)"],
  [".python_history", "REPL history (typed tokens and passwords)"],
  [".node_repl_history", "REPL history (typed tokens and passwords)"],
  [".psql_history", "REPL history (typed tokens and passwords)"],
  [".mysql_history", "REPL history (typed tokens and passwords)"],
  [".sqlite_history", "REPL history (typed tokens and passwords)"],
  [".rediscli_history", "REPL history (typed tokens and passwords)"],
  [".irb_history", "REPL history (typed tokens and passwords)"],
  [".pry_history", "REPL history (typed tokens and passwords)"],
  [".zsh_sessions", "shell history (typed tokens and passwords)"],
  [".bash_sessions", "shell history (typed tokens and passwords)"],
  // AI assistants' own keys and sign-ins: what an agent is most likely to be steered towards.
  [".codex/auth.json", "OpenAI Codex CLI credentials"],
  [".claude/.credentials.json", "Claude Code credentials"],
  [".claude.json", "Claude Code account and API key"],
  [".gemini/oauth_creds.json", "Gemini CLI credentials"],
  [".config/github-copilot", "GitHub Copilot tokens"],
  [".huggingface/token", "Hugging Face token"],
  [".cache/huggingface/token", "Hugging Face token"],
  [".cache/huggingface/stored_tokens", "Hugging Face tokens"],
  // Developer platform CLIs that keep a token in a file of their own.
  [".composer/auth.json", "Composer registry credentials"],
  [".config/composer/auth.json", "Composer registry credentials"],
  [".nuget/NuGet/NuGet.Config", "NuGet feed credentials"],
  [".config/containers/auth.json", "container registry credentials"],
  [".pulumi/credentials.json", "Pulumi tokens"],
  [".fly/config.yml", "Fly.io token"],
  [".config/netlify", "Netlify token"],
  [".netlify/config.json", "Netlify token"],
  [".local/share/com.vercel.cli", "Vercel token"],
  ["Library/Application Support/com.vercel.cli", "Vercel token"],
  [".wrangler", "Cloudflare credentials"],
  [".config/.wrangler", "Cloudflare credentials"],
  [".supabase/access-token", "Supabase token"],
  [".config/stripe", "Stripe keys"],
  [".config/hcloud", "Hetzner Cloud token"],
  [".ngrok2", "ngrok token"],
  [".config/ngrok", "ngrok token"],
  [".Xauthority", "X display cookie (control of the user's screen and keyboard)"],
  // Pass 6: credential stores of tools the list did not know yet.
  [".mylogin.cnf", "MySQL login paths (passwords)"],
  [".vnc/passwd", "VNC password"],
  [".purple/accounts.xml", "chat account passwords (Pidgin)"],
  [".ivy2/.credentials", "Ivy/sbt repository credentials"],
  [".mc/config.json", "MinIO client keys"],
  [".wakatime.cfg", "WakaTime API key"],
  [".netrc.gpg", "netrc credentials"],
  [".terraformrc", "Terraform credentials"],
  [".config/helm/repositories.yaml", "Helm repository passwords"],
  [".config/configstore", "tokens of Node CLIs (Firebase, Vercel…)"],
  [".config/Bitwarden", "Bitwarden vault"],
  [".config/Bitwarden CLI", "Bitwarden vault"],
  [".config/discord", "Discord session token"],
  [".local/share/TelegramDesktop", "Telegram session keys"],
  // Sockets of agents and daemons: connecting is not a write, so a read-only home does not stop it.
  [".cache/git/credential", "git credential cache (socket)"],
  [".git-credential-cache", "git credential cache (socket)"],
  [".1password", "1Password SSH agent"],
  [".docker/run", "Docker daemon socket"],
  [".docker/desktop", "Docker daemon socket"],
  [".colima", "Docker daemon socket (Colima)"],
  [".orbstack/run", "Docker daemon socket (OrbStack)"],
  [".rd/docker.sock", "Docker daemon socket (Rancher Desktop)"],
];

const absoluteEntries: readonly [string, string][] = [
  ["/etc/shadow", "system password hashes"],
  ["/etc/gshadow", "system group password hashes"],
  ["/etc/sudoers", "sudo configuration"],
  ["/etc/sudoers.d", "sudo configuration"],
  ["/etc/master.passwd", "system password hashes"],
  ["/private/etc/master.passwd", "system password hashes"],
  ["/private/etc/sudoers", "sudo configuration"],
  ["/etc/ssh", "SSH host keys"],
  ["/root", "the root user's home"],
  ["/proc/self/environ", "process environment (API keys)"],
  ["/proc/thread-self/environ", "process environment (API keys)"],
  ["/proc/kcore", "kernel memory"],
  ["/dev/mem", "physical memory"],
  ["/dev/kmem", "kernel memory"],
  ["/dev/port", "I/O ports"],
  ["/Library/Keychains", "macOS keychains"],
  ["/run/secrets", "container secrets"],
  ["/var/run/secrets", "container and Kubernetes service-account secrets"],
  ["/etc/ssl/private", "TLS private keys"],
  ["/etc/krb5.keytab", "Kerberos keys"],
  ["/etc/NetworkManager/system-connections", "Wi-Fi and VPN secrets"],
];

/** Raw disks and partitions: reading one reads every file on it, secrets included, past any mask. */
const rawDisk =
  /^\/dev\/(sd[a-z]|hd[a-z]|vd[a-z]|xvd[a-z]|nvme\d|mmcblk\d|dm-\d|md\d|loop\d|sr\d|nbd\d|rdisk\d|disk\d|mapper\/|disk\/|block\/)/;

/**
 * `/proc/<pid>/…` (any pid, `self`, `thread-self`, `task/<tid>/…`) entries that expose a process's
 * environment, memory or arguments: Mercury's own API keys live in its environment.
 */
const processSecret =
  /^\/proc\/[^/]+\/(task\/[^/]+\/)?(environ|mem|maps|smaps|smaps_rollup|numa_maps|pagemap|cmdline|auxv|stack|syscall|map_files)(\/|$)/;

/** Credential file names that are secrets wherever they are (browser stores, credential files). */
const secretFileNames = new Set([
  "login data",
  "login data for account",
  "login data-journal",
  "cookies",
  "cookies-journal",
  "web data",
  "key3.db",
  "key4.db",
  "logins.json",
  "cookies.sqlite",
  "signons.sqlite",
  ".git-credentials",
  ".netrc",
  "_netrc",
  ".pgpass",
  "credentials.toml",
  "wallet.dat",
]);

const privateKeyNames = /^(id_(rsa|dsa|ecdsa|ed25519)(_sk)?|.*\.(pem|key|p12|pfx|jks|keystore|ppk))$/;

/** Password manager databases (KeePass, 1Password vaults): every password of the user, encrypted. */
const passwordDatabaseNames = /\.(kdbx|kdb|opvault|agilekeychain)$/;

export function sensitiveMatch(path: string, home: string, mercuryHome: string): SensitiveMatch | null {
  const folded = foldForComparison(path);
  const under = (root: string) => {
    const r = foldForComparison(root);
    return folded === r || folded.startsWith(r.endsWith("/") ? r : `${r}/`);
  };
  for (const [entry, what] of homeEntries) if (under(join(home, entry))) return { what };
  for (const [entry, what] of absoluteEntries) {
    // Running as root, /root is the user's own home: its secrets are covered by the home entries.
    if (entry === "/root" && (home === "/root" || home.startsWith("/root/"))) continue;
    if (under(entry)) return { what };
  }
  // `.env` and every copy beside it (`.env.bak`, `.env~`, an editor's `.env.swp`) hold Mercury's keys.
  if (folded.startsWith(foldForComparison(join(mercuryHome, ".env"))))
    return { what: "Mercury's secrets file" };
  if (rawDisk.test(folded)) return { what: "a raw disk (every file on it, secrets included)" };
  const mercuryDb = foldForComparison(join(mercuryHome, "mercury.db"));
  if (folded.startsWith(mercuryDb)) return { what: "Mercury's database" };
  if (processSecret.test(folded)) return { what: "another process's memory, environment or command line" };
  const name = basename(folded);
  if (privateKeyNames.test(name)) return { what: "a private key file" };
  if (secretFileNames.has(name)) return { what: "a credentials file" };
  if (passwordDatabaseNames.test(name)) return { what: "a password manager database" };
  return null;
}

/**
 * Files a project keeps its secrets in, by the names tools give them: `.env` and its variants
 * (`.env.local`, `prod.env`, direnv's `.envrc`, wrangler's `.dev.vars`), secrets and credentials
 * JSON/YAML (Google service accounts and OAuth clients), Terraform state (plain-text outputs and
 * provider secrets), `.htpasswd`. Templates (`.example`, `.sample`…) are not secrets.
 */
const projectSecretNames = [
  /^\.env([.\-_].+)?$/,
  /^[^/]+\.env$/,
  /^\.envrc$/,
  /^\.dev\.vars$/,
  /^\.secrets?$/,
  /^secrets?\.(json|ya?ml|toml|ini|env)$/,
  /^credentials\.(json|ya?ml)$/,
  /^(service[-_]?account|client[-_]secret)[^/]*\.json$/,
  /^[^/]*\.tfstate(\.backup)?$/,
  /^\.htpasswd$/,
];

/** A project's .env-style file: reading or writing it needs approval (not a hard refusal). */
export function isEnvFile(path: string): boolean {
  const name = basename(foldForComparison(path));
  if (!projectSecretNames.some((pattern) => pattern.test(name))) return false;
  return !/[.\-_](example|sample|template|dist|defaults?)$/.test(name);
}

/**
 * A project's own settings for package tools: `.npmrc` and `.yarnrc(.yml)` hold registry tokens
 * and name programs the tool runs later (`script-shell`, `node-options`, `yarnPath`), `.pypirc`
 * holds upload tokens. Reading or writing one asks like an `.env`; a recursive search over a
 * project that merely has one is not asked about (most JavaScript projects carry an `.npmrc`).
 */
export function isPackageToolConfig(path: string): boolean {
  return /^\.(npmrc|yarnrc|yarnrc\.yml|pypirc)$/.test(basename(foldForComparison(path)));
}

/** Roots under which a recursive read would reach a sensitive path (for `grep -r`, `find`, `du`...). */
export function sensitiveRoots(home: string, mercuryHome: string): string[] {
  return [
    ...homeEntries.map(([entry]) => join(home, entry)),
    ...absoluteEntries.map(([entry]) => entry),
    join(mercuryHome, ".env"),
    join(mercuryHome, "mercury.db"),
  ];
}

/**
 * Every fixed secret location on the list above, as absolute paths (the OS sandbox masks the ones
 * that exist). Name patterns (private key file names, /proc/<pid>/...) are not locations; the
 * sandbox covers those by other means (its own /proc; the read-only file system outside the workspace).
 */
export function sensitiveLocations(home: string, mercuryHome: string): string[] {
  const locations = homeEntries.map(([entry]) => join(home, entry));
  for (const [entry] of absoluteEntries) {
    if (entry === "/root" && (home === "/root" || home.startsWith("/root/"))) continue;
    if (!entry.startsWith("/proc/")) locations.push(entry);
  }
  locations.push(join(mercuryHome, ".env"), join(mercuryHome, "mercury.db"));
  return locations;
}

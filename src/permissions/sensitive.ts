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

const homeEntries: readonly [string, string][] = [
  [".ssh", "SSH keys and config"],
  [".aws", "AWS credentials"],
  [".gnupg", "GnuPG keys"],
  [".config/gcloud", "Google Cloud credentials"],
  [".kube", "Kubernetes credentials"],
  [".docker/config.json", "Docker registry credentials"],
  [".netrc", "netrc credentials"],
  [".npmrc", "npm tokens"],
  [".pypirc", "PyPI tokens"],
  [".pgpass", "PostgreSQL passwords"],
  [".git-credentials", "git credentials"],
  [".config/gh", "GitHub CLI tokens"],
  [".azure", "Azure credentials"],
  [".password-store", "pass password store"],
  [".local/share/keyrings", "desktop keyring"],
  ["Library/Keychains", "macOS keychains"],
  [".mozilla", "browser profiles (cookies, saved passwords)"],
  [".config/google-chrome", "browser profiles (cookies, saved passwords)"],
  ["Library/Application Support/Google/Chrome", "browser profiles (cookies, saved passwords)"],
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
  ["/Library/Keychains", "macOS keychains"],
];

const privateKeyNames = /^(id_(rsa|dsa|ecdsa|ed25519)(_sk)?|.*\.(pem|key|p12|pfx|jks|keystore|ppk))$/;

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
  if (under(join(mercuryHome, ".env"))) return { what: "Mercury's secrets file" };
  const mercuryDb = foldForComparison(join(mercuryHome, "mercury.db"));
  if (folded.startsWith(mercuryDb)) return { what: "Mercury's database" };
  if (/^\/proc\/[^/]+\/(environ|mem|maps)$/.test(folded)) return { what: "process memory or environment" };
  const name = basename(folded);
  if (privateKeyNames.test(name)) return { what: "a private key file" };
  return null;
}

/** A project's .env-style file: reading or writing it needs approval (not a hard refusal). */
export function isEnvFile(path: string): boolean {
  const name = basename(foldForComparison(path));
  if (!/^\.env(\..+)?$/.test(name)) return false;
  return !/\.(example|sample|template|dist)$/.test(name);
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

import { existsSync, readFileSync, statSync } from "node:fs";
import { dirname, isAbsolute, join, resolve } from "node:path";

/**
 * git runs programs named in its configuration during "read-only" commands: `core.fsmonitor` on
 * `git status`, `diff.external` and textconv drivers on `git diff`/`log -p`, clean filters on
 * `status`, pagers, aliases and more. The effective configuration is read the way git reads it —
 * system, global (`~/.gitconfig`, `$XDG_CONFIG_HOME/git/config`), the repository's `config` in its
 * common dir, `config.worktree` when `extensions.worktreeConfig` is on, includes and includeIf
 * (followed whatever their condition: stricter), `GIT_CONFIG_*` and `GIT_DIR` from the environment,
 * `--git-dir`/`-C`, `.git` files and `commondir`. A program-running setting from any source makes
 * the git command ask.
 */
const executingKeys: RegExp[] = [
  /^core\.(fsmonitor|pager|sshcommand|hookspath|editor|askpass|gitproxy|alternaterefscommand)$/,
  /^diff\.external$/,
  /^diff\..+\.(textconv|command)$/,
  /^merge\..+\.driver$/,
  /^filter\..+\.(clean|smudge|process)$/,
  /^pager\./,
  /^alias\./,
  /^remote\..+\.(uploadpack|receivepack|vcs)$/,
  /^gpg(\..+)?\.program$/,
  /^credential(\..+)?\.helper$/,
  /^sequence\.editor$/,
  /^uploadpack\.packobjectshook$/,
  /^(difftool|mergetool|browser|man)\..+\.(cmd|path)$/,
  /^trailer\..+\.(command|cmd)$/,
  /^interactive\.difffilter$/,
  /^protocol\.ext\.allow$/,
  /^ssh\.variant$/,
];

/**
 * Keys that only run a program for network or editing commands (fetch, push, commit, rebase), none of
 * which is on the read-only list. Trusted from the user's own system and global config (where a
 * `credential.helper` is normal); from the repository or the environment they still ask.
 */
const networkOrEditorOnly: RegExp[] = [
  /^core\.(sshcommand|askpass|gitproxy|editor)$/,
  /^credential(\..+)?\.helper$/,
  /^remote\..+\.(uploadpack|receivepack|vcs)$/,
  /^sequence\.editor$/,
  /^ssh\.variant$/,
];

const booleanValues = new Set(["true", "false", "yes", "no", "on", "off", "1", "0", ""]);

/** Values that name git's own helpers or ordinary pagers and editors, which run nothing unexpected. */
function harmlessValue(key: string, value: string): boolean {
  const v = value.trim();
  if (key === "core.fsmonitor") return booleanValues.has(v.toLowerCase());
  if (/^credential(\..+)?\.helper$/.test(key))
    return /^(|store|cache|osxkeychain|libsecret|manager|manager-core|wincred|gnome-keyring)(\s+--[\w-]+(=\S+)?)*$/.test(
      v,
    );
  if (key === "core.pager" || key.startsWith("pager."))
    return booleanValues.has(v.toLowerCase()) || /^(less|more|cat)(\s+-[A-Za-z]+)*$/.test(v);
  if (key === "core.editor" || key === "sequence.editor")
    return /^(vi|vim|nvim|nano|emacs|micro|hx|ed)(\s+-[\w-]+)*$/.test(v);
  if (key.startsWith("alias.")) return !v.startsWith("!");
  if (key === "protocol.ext.allow") return v === "never";
  return false;
}

export interface GitConfigEntry {
  key: string;
  value: string;
}

/**
 * Keys of a git config file: "section.subsection.key" with section and key lower-cased, subsection
 * case kept. Handles `[section] key = value` on one line, `[section.sub]`, quoted values, comments
 * after values, and line continuations.
 */
export function parseGitConfig(text: string): GitConfigEntry[] {
  const entries: GitConfigEntry[] = [];
  let section = "";
  const lines = text.replace(/\\\r?\n/g, "").split(/\r?\n/);
  for (const rawLine of lines) {
    let line = rawLine.trim();
    while (line.startsWith("[")) {
      const header = /^\[\s*([A-Za-z0-9.-]+)(?:\s+"((?:[^"\\]|\\.)*)")?\s*\]/.exec(line);
      if (!header) break;
      const name = header[1] ?? "";
      const dot = name.indexOf(".");
      if (header[2] !== undefined) section = `${name.toLowerCase()}.${header[2].replace(/\\(.)/g, "$1")}`;
      else if (dot !== -1)
        section = `${name.slice(0, dot).toLowerCase()}.${name.slice(dot + 1).toLowerCase()}`;
      else section = name.toLowerCase();
      line = line.slice(header[0].length).trim();
    }
    if (line === "" || line.startsWith("#") || line.startsWith(";")) continue;
    const assignment = /^([A-Za-z][A-Za-z0-9-]*)\s*(?:=\s*(.*))?$/.exec(line);
    if (assignment && section !== "") {
      entries.push({
        key: `${section}.${(assignment[1] ?? "").toLowerCase()}`,
        value: configValue(assignment[2] ?? ""),
      });
    }
  }
  return entries;
}

/** A value with quotes removed and a trailing comment (outside quotes) cut off. */
function configValue(raw: string): string {
  let out = "";
  let quoted = false;
  for (let index = 0; index < raw.length; index++) {
    const char = raw[index] as string;
    if (char === "\\" && index + 1 < raw.length) {
      const next = raw[index + 1] as string;
      out += next === "n" ? "\n" : next === "t" ? "\t" : next;
      index += 1;
    } else if (char === '"') quoted = !quoted;
    else if (!quoted && (char === "#" || char === ";")) break;
    else out += char;
  }
  return out.trim();
}

export type GitConfigRisk = { configPath: string; keys: string[] } | null;

export interface GitLocation {
  /** Where git starts looking (the cwd, or `-C`). */
  directory: string;
  /** `--git-dir` or `GIT_DIR`. */
  gitDir?: string;
  home: string;
  env: Readonly<Record<string, string | undefined>>;
}

/** The repository's git dir and common dir, found the way git finds them. */
function locateRepository(location: GitLocation): { gitDir: string; commonDir: string } | null {
  let gitDir: string | null = null;
  const explicit = location.gitDir ?? location.env.GIT_DIR;
  if (explicit) gitDir = resolve(location.directory, explicit);
  else {
    let directory = location.directory;
    for (;;) {
      const candidate = join(directory, ".git");
      if (existsSync(candidate)) {
        gitDir = candidate;
        break;
      }
      // A folder that is itself a repository (HEAD, objects/, refs/) is a bare repository to git, and
      // its `config` counts: `git -C folder diff` runs that config's diff.external.
      if (isBareRepository(directory)) {
        gitDir = directory;
        break;
      }
      const parent = dirname(directory);
      if (parent === directory) return null;
      directory = parent;
    }
  }
  if (existsSync(gitDir) && statSync(gitDir).isFile()) {
    const pointer = /^gitdir:\s*(.+)$/m.exec(readFileSync(gitDir, "utf8"));
    if (!pointer) return { gitDir, commonDir: gitDir };
    gitDir = resolve(dirname(gitDir), (pointer[1] ?? "").trim());
  }
  let commonDir = gitDir;
  const commonFile = join(gitDir, "commondir");
  if (existsSync(commonFile)) commonDir = resolve(gitDir, readFileSync(commonFile, "utf8").trim());
  return { gitDir, commonDir };
}

/** Whether git, run from `location`, would read a setting that makes it run a program. */
export function gitConfigRisk(location: GitLocation | string): GitConfigRisk {
  const where: GitLocation =
    typeof location === "string" ? { directory: location, home: process.env.HOME ?? "/", env: {} } : location;
  const env = where.env;
  const risky: { file: string; key: string }[] = [];
  const seen = new Set<string>();
  let userLevel = true;
  const readFile = (file: string, depth: number): GitConfigEntry[] => {
    if (depth > 10 || seen.has(file) || !existsSync(file)) return [];
    seen.add(file);
    let entries: GitConfigEntry[];
    try {
      entries = parseGitConfig(readFileSync(file, "utf8"));
    } catch (error) {
      // A config git itself could not read either (a folder, no permission) cannot run anything.
      if (typeof error === "object" && error !== null && "code" in error) return [];
      throw error;
    }
    const all: GitConfigEntry[] = [];
    for (const entry of entries) {
      all.push(entry);
      if (/^(include|includeif\..+)\.path$/.test(entry.key.toLowerCase())) {
        // A repository that includes other files can change what git runs without touching its config.
        if (!userLevel) risky.push({ file, key: entry.key });
        let target = entry.value;
        if (target.startsWith("~/")) target = join(where.home, target.slice(2));
        if (!isAbsolute(target)) target = resolve(dirname(file), target);
        for (const included of readFile(target, depth + 1)) all.push({ ...included, key: included.key });
        continue;
      }
      judge(file, entry);
    }
    return all;
  };
  const judge = (file: string, entry: GitConfigEntry) => {
    const key = lowerKey(entry.key);
    if (!executingKeys.some((pattern) => pattern.test(key))) return;
    if (harmlessValue(key, entry.value)) return;
    if (userLevel && networkOrEditorOnly.some((pattern) => pattern.test(key))) return;
    risky.push({ file, key: entry.key });
  };
  if (!truthy(env.GIT_CONFIG_NOSYSTEM)) {
    for (const file of env.GIT_CONFIG_SYSTEM ? [env.GIT_CONFIG_SYSTEM] : systemConfigs) readFile(file, 0);
  }
  const xdg =
    env.XDG_CONFIG_HOME && isAbsolute(env.XDG_CONFIG_HOME)
      ? env.XDG_CONFIG_HOME
      : join(where.home, ".config");
  const globals = env.GIT_CONFIG_GLOBAL
    ? [env.GIT_CONFIG_GLOBAL]
    : [join(xdg, "git", "config"), join(where.home, ".gitconfig")];
  for (const file of globals) readFile(file, 0);
  userLevel = false;
  const repository = locateRepository(where);
  if (repository) {
    const repoEntries = readFile(join(repository.commonDir, "config"), 0);
    const worktreeConfig = repoEntries.some(
      (entry) =>
        entry.key.toLowerCase() === "extensions.worktreeconfig" &&
        !["false", "no", "off", "0"].includes(entry.value.toLowerCase()),
    );
    if (worktreeConfig) readFile(join(repository.gitDir, "config.worktree"), 0);
  }
  const count = Number(env.GIT_CONFIG_COUNT ?? "0");
  for (let index = 0; Number.isSafeInteger(count) && index < Math.min(count, 1000); index++) {
    const key = env[`GIT_CONFIG_KEY_${index}`];
    if (key) judge("GIT_CONFIG_KEY_*", { key, value: env[`GIT_CONFIG_VALUE_${index}`] ?? "" });
  }
  if (env.GIT_CONFIG_PARAMETERS)
    risky.push({ file: "GIT_CONFIG_PARAMETERS", key: "(settings from the environment)" });
  if (env.GIT_EXTERNAL_DIFF) risky.push({ file: "environment", key: "GIT_EXTERNAL_DIFF" });
  if (risky.length === 0) return null;
  return {
    configPath: (risky[0] as { file: string }).file,
    keys: [...new Set(risky.map((entry) => entry.key))],
  };
}

function isBareRepository(directory: string): boolean {
  try {
    return (
      statSync(join(directory, "HEAD")).isFile() &&
      statSync(join(directory, "objects")).isDirectory() &&
      statSync(join(directory, "refs")).isDirectory()
    );
  } catch (error) {
    // Missing or unreadable: git would not take it for a repository either.
    if (typeof error === "object" && error !== null && "code" in error) return false;
    throw error;
  }
}

/**
 * The folder git runs hooks from for the repository holding `path` (`core.hooksPath` from the
 * repository or the user's config, relative values taken from the work tree's top), or null when
 * none is set: `.husky/` and `.githooks/` folders are as much git internals as `.git/hooks`.
 */
export function hooksDirectory(
  path: string,
  home: string,
  env: Readonly<Record<string, string | undefined>>,
): string | null {
  const repository = locateRepository({ directory: dirname(path), home, env });
  if (!repository) return null;
  const xdg =
    env.XDG_CONFIG_HOME && isAbsolute(env.XDG_CONFIG_HOME) ? env.XDG_CONFIG_HOME : join(home, ".config");
  let value: string | null = null;
  for (const file of [
    join(xdg, "git", "config"),
    join(home, ".gitconfig"),
    join(repository.commonDir, "config"),
  ]) {
    if (!existsSync(file) || !statSync(file).isFile()) continue;
    for (const entry of parseGitConfig(readFileSync(file, "utf8")))
      if (entry.key.toLowerCase() === "core.hookspath") value = entry.value;
  }
  if (!value) return null;
  if (value.startsWith("~/")) return join(home, value.slice(2));
  const top = repository.gitDir.endsWith("/.git") ? dirname(repository.gitDir) : repository.gitDir;
  return resolve(top, value);
}

const systemConfigs = ["/etc/gitconfig", "/usr/local/etc/gitconfig", "/opt/homebrew/etc/gitconfig"];

function lowerKey(key: string): string {
  return key.toLowerCase();
}

function truthy(value: string | undefined): boolean {
  return value !== undefined && !["", "0", "false", "no", "off"].includes(value.toLowerCase());
}

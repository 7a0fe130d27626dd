import { existsSync, readFileSync, statSync } from "node:fs";
import { dirname, join } from "node:path";

/**
 * A repository's own .git/config can name programs that git runs during "read-only" commands:
 * `core.fsmonitor` runs on `git status`, `diff.external` and textconv drivers on `git diff`/`log -p`,
 * clean filters on `status` of modified files, pagers, and more. A cloned or downloaded repository is
 * untrusted input, so such keys turn an allowed git command into one that asks.
 */
const executingKeys: RegExp[] = [
  /^core\.(fsmonitor|pager|sshcommand|hookspath|editor|askpass|gitproxy)$/,
  /^diff\.external$/,
  /^diff\..+\.(textconv|command)$/,
  /^merge\..+\.driver$/,
  /^filter\..+\.(clean|smudge|process)$/,
  /^pager\./,
  /^gpg(\..+)?\.program$/,
  /^credential(\..+)?\.helper$/,
  /^(include|includeif\..+)\.path$/,
  /^sequence\.editor$/,
  /^uploadpack\.packobjectshook$/,
];

const booleanValues = new Set(["true", "false", "yes", "no", "on", "off", "1", "0", ""]);

/** The repository's .git directory (or file, for worktrees and submodules) at or above `start`. */
function findGitEntry(start: string): string | null {
  let directory = start;
  for (;;) {
    const candidate = join(directory, ".git");
    if (existsSync(candidate)) return candidate;
    const parent = dirname(directory);
    if (parent === directory) return null;
    directory = parent;
  }
}

/** Keys of a git config file, lower-cased "section.subsection.key" (subsection case kept), with values. */
export function parseGitConfig(text: string): { key: string; value: string }[] {
  const entries: { key: string; value: string }[] = [];
  let section = "";
  for (const rawLine of text.split(/\r?\n/)) {
    const line = rawLine.trim();
    if (line === "" || line.startsWith("#") || line.startsWith(";")) continue;
    const header = /^\[\s*([A-Za-z0-9.-]+)(?:\s+"((?:[^"\\]|\\.)*)")?\s*\]/.exec(line);
    if (header) {
      const name = (header[1] ?? "").toLowerCase();
      section = header[2] !== undefined ? `${name}.${header[2]}` : name;
      continue;
    }
    const assignment = /^([A-Za-z][A-Za-z0-9-]*)\s*(?:=\s*(.*))?$/.exec(line);
    if (assignment && section !== "") {
      entries.push({
        key: `${section}.${(assignment[1] ?? "").toLowerCase()}`,
        value: (assignment[2] ?? "").trim(),
      });
    }
  }
  return entries;
}

export type GitConfigRisk = { configPath: string; keys: string[] } | null;

/**
 * Whether the repository that contains `directory` configures programs git would run.
 * A `.git` file (worktree, submodule) points elsewhere: reported as a risk to be asked about.
 */
export function gitConfigRisk(directory: string): GitConfigRisk {
  const entry = findGitEntry(directory);
  if (!entry) return null;
  if (!statSync(entry).isDirectory())
    return { configPath: entry, keys: ["gitdir (a .git file pointing elsewhere)"] };
  const configPath = join(entry, "config");
  if (!existsSync(configPath)) return null;
  const risky = parseGitConfig(readFileSync(configPath, "utf8"))
    .filter(({ key, value }) => {
      const lowered = key.toLowerCase();
      if (!executingKeys.some((pattern) => pattern.test(lowered))) return false;
      // core.fsmonitor=true uses git's own built-in daemon; only a command path runs a program.
      return !(lowered === "core.fsmonitor" && booleanValues.has(value.toLowerCase()));
    })
    .map(({ key }) => key);
  return risky.length > 0 ? { configPath, keys: [...new Set(risky)] } : null;
}

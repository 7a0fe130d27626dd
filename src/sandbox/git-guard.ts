import { lstatSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/**
 * What git runs later, outside the sandbox. The sandbox keeps `.git/hooks` read-only, but a command
 * approved by allow-all (`--yes`) can still point git at a program through `.git/config`
 * (`core.hooksPath`, `core.fsmonitor`, a filter, a pager, an include of another file) or at another
 * repository's config and hooks through `.git/commondir`; the user's next `git status` or commit
 * would run it with all their rights. A read-only config breaks `git remote add` and `push -u`, so
 * instead the state is compared after each command and such a change is put back and reported.
 * A person who approved the exact command keeps its change.
 */
export interface GitGuard {
  /** Puts back what the command changed that git would run; a sentence for the tool result, or null. */
  check(): string | null;
}

const execNames = new Set([
  "core.hookspath",
  "core.fsmonitor",
  "core.pager",
  "core.editor",
  "core.sshcommand",
  "core.askpass",
  "core.gitproxy",
  "core.worktree",
  "core.alternaterefscommand",
  "diff.external",
  "sequence.editor",
  "gpg.program",
  "credential.helper",
  "uploadpack.packobjectshook",
  "include.path",
  "interactive.difffilter",
  "web.browser",
]);

const execPatterns: readonly RegExp[] = [
  /^includeif\..+\.path$/,
  /^filter\..+\.(clean|smudge|process)$/,
  /^diff\..+\.(textconv|command)$/,
  /^merge\..+\.driver$/,
  /^pager\./,
  /^alias\./,
  /^gpg\..+\.program$/,
  /^credential\..+\.helper$/,
  /^remote\..+\.(uploadpack|receivepack)$/,
  /^(browser|man|difftool|mergetool)\..+\.(cmd|path)$/,
];

function runsProgram(name: string): boolean {
  return execNames.has(name) || execPatterns.some((pattern) => pattern.test(name));
}

/** `section[.subsection].key=value` for every setting in a git config text; names folded as git folds them. */
export function configEntries(text: string): string[] {
  const entries: string[] = [];
  let section = "";
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (line === "" || line.startsWith("#") || line.startsWith(";")) continue;
    const header = /^\[\s*([A-Za-z0-9.-]+)(?:\s+"((?:[^"\\]|\\.)*)")?\s*\](.*)$/.exec(line);
    if (header) {
      const [, name = "", subsection] = header;
      section = subsection !== undefined ? `${name.toLowerCase()}.${subsection}` : name.toLowerCase();
      // `[core] hooksPath = x` on one line is valid git config too.
      const rest = (header[3] ?? "").trim();
      if (rest !== "") entries.push(...configEntries(`[${section}]\n${rest}`));
      continue;
    }
    const setting = /^([A-Za-z][A-Za-z0-9-]*)\s*(?:=\s*(.*))?$/.exec(line);
    // Anything else (a continuation, a malformed line) is kept whole: a change to it counts as a change.
    entries.push(setting ? `${section}.${(setting[1] ?? "").toLowerCase()}=${setting[2] ?? ""}` : `?${line}`);
  }
  return entries;
}

/** The settings in `after` that make git run something and were not in `before` as they are now. */
export function newProgramSettings(before: string, after: string): string[] {
  const old = new Set(configEntries(before));
  return configEntries(after)
    .filter((entry) => !old.has(entry))
    .map((entry) => (entry.startsWith("?") ? entry : entry.slice(0, entry.indexOf("="))))
    .filter((name) => name.startsWith("?") || runsProgram(name));
}

function readText(path: string): string | null {
  try {
    return readFileSync(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw error;
  }
}

function isDirectory(path: string): boolean {
  return lstatSync(path, { throwIfNoEntry: false })?.isDirectory() === true;
}

/** Replaces whatever is at `path` (a file, a link the command made) with `text`, or removes it. */
function putBack(path: string, text: string | null): void {
  rmSync(path, { force: true });
  if (text !== null) writeFileSync(path, text);
}

/** Null when the workspace has no `.git` folder of its own (nothing git would read from it). */
export function guardGitState(workspace: string): GitGuard | null {
  const gitFolder = join(workspace, ".git");
  if (!isDirectory(gitFolder)) return null;
  const configPath = join(gitFolder, "config");
  const commondirPath = join(gitFolder, "commondir");
  const config = readText(configPath);
  const commondir = readText(commondirPath);
  return {
    check() {
      const restored: string[] = [];
      const configNow = isDirectory(gitFolder) ? readText(configPath) : config;
      if (configNow !== config) {
        const added = newProgramSettings(config ?? "", configNow ?? "");
        if (added.length > 0) {
          putBack(configPath, config);
          restored.push(`.git/config (${added.map((name) => name.replace(/^\?/, "")).join(", ")})`);
        }
      }
      if (isDirectory(gitFolder) && readText(commondirPath) !== commondir) {
        putBack(commondirPath, commondir);
        restored.push(".git/commondir (points git at another repository's config and hooks)");
      }
      if (restored.length === 0) return null;
      return `Mercury put back ${restored.join(" and ")}: git would run what the command set there later, outside the sandbox, with the user's rights. Only the user makes such a change (ask them to run it themselves).`;
    },
  };
}

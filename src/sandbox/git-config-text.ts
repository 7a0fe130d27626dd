/**
 * Reading git config text as git does, for the settings that make git run a program later
 * (git-guard.ts compares them before and after a command; git-inventory.ts follows includes).
 */
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

export function runsProgram(name: string): boolean {
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

/**
 * `text` without the lines that set a program-running key (a config file that did not exist before
 * the command keeps everything else: a new clone keeps its remote). A section header with a setting
 * on the same line keeps the header; an unreadable line (a continuation) goes too.
 */
export function withoutProgramSettings(text: string): string {
  const kept: string[] = [];
  let section = "";
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (line === "" || line.startsWith("#") || line.startsWith(";")) {
      kept.push(raw);
      continue;
    }
    const header = /^\[\s*([A-Za-z0-9.-]+)(?:\s+"((?:[^"\\]|\\.)*)")?\s*\](.*)$/.exec(line);
    if (header) {
      const [, name = "", subsection] = header;
      section = subsection !== undefined ? `${name.toLowerCase()}.${subsection}` : name.toLowerCase();
      const rest = header[3] ?? "";
      const runs = rest.trim() !== "" && newProgramSettings("", `[${section}]\n${rest}`).length > 0;
      kept.push(runs ? line.slice(0, line.length - rest.length) : raw);
      continue;
    }
    const setting = /^([A-Za-z][A-Za-z0-9-]*)\s*(?:=\s*(.*))?$/.exec(line);
    if (!setting || runsProgram(`${section}.${(setting[1] ?? "").toLowerCase()}`)) continue;
    kept.push(raw);
  }
  return kept.join("\n");
}

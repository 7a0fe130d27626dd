import type { Analysis } from "./command-rules.js";
import type { WalkScope } from "./command-walk-scope.js";
import type { Finding } from "./shell-words.js";

/**
 * PowerShell (`pwsh`, `powershell`) given code: `-Command`/`-c` (any case, any prefix, `/Command`),
 * `-EncodedCommand` (base64 of UTF-16LE text), `-CommandWithArgs`, `-File` or the first operand. The
 * code always asks (`command.inline-code`, like `python3 -c`); what it does to files is read by
 * spelling its cmdlets as the shell commands they are (`Remove-Item -Recurse ~` is `rm -rf ~`,
 * `Set-Content $PROFILE`/`Out-File ~/x` are writes there), so deleting the home folder is the same
 * hardline denial and a write outside the workspace the same person's call as in bash.
 */

const valuedParameters = [
  "executionpolicy",
  "workingdirectory",
  "outputformat",
  "inputformat",
  "windowstyle",
  "configurationname",
  "configurationfile",
  "custompipename",
  "settingsfile",
  "version",
  "psconsolefile",
  "encodedarguments",
];

export const powershellPrograms = new Set([
  "pwsh",
  "powershell",
  "pwsh-preview",
  "pwsh.exe",
  "powershell.exe",
]);

interface PowerShellInput {
  code: string | null;
  file: string | null;
}

/** Which parameter a word is: `-c`, `-Com`, `/Command`, `--command` are all `command`. */
function parameterName(word: string): string | null {
  const match = /^(?:--?|\/)([A-Za-z][\w]*)(?::.*)?$/.exec(word);
  if (!match) return null;
  const name = (match[1] as string).toLowerCase();
  if (name === "c" || name === "co" || "command".startsWith(name)) return "command";
  if (name === "cwa" || name === "commandwithargs") return "commandwithargs";
  if (name === "e" || name === "ec" || (name.length > 1 && "encodedcommand".startsWith(name)))
    return "encodedcommand";
  if (name === "f" || "file".startsWith(name)) return "file";
  if (name === "ex" || name === "ep") return "executionpolicy";
  if (name === "wd") return "workingdirectory";
  if (name === "o" || name === "of") return "outputformat";
  if (name === "if" || name === "in") return "inputformat";
  if (name === "w") return "windowstyle";
  if (name === "config") return "configurationname";
  if (name === "ea") return "encodedarguments";
  const valued = valuedParameters.find((full) => name.length > 2 && full.startsWith(name));
  return valued ?? `flag:${name}`;
}

export function powershellInput(program: string, args: string[]): PowerShellInput {
  for (let index = 0; index < args.length; index++) {
    const word = args[index] as string;
    const name = parameterName(word);
    if (name === null) {
      // The first operand: a script file for pwsh, a command for Windows PowerShell 5.
      if (program.startsWith("powershell")) return { code: args.slice(index).join(" "), file: null };
      return { code: null, file: word };
    }
    if (name === "command" || name === "commandwithargs")
      return { code: args.slice(index + 1).join(" "), file: null };
    if (name === "encodedcommand") return { code: decodeUtf16(args[index + 1] ?? ""), file: null };
    if (name === "file") return { code: null, file: args[index + 1] ?? null };
    if (!name.startsWith("flag:")) index += 1;
  }
  return { code: null, file: null };
}

function decodeUtf16(base64: string): string {
  return Buffer.from(base64, "base64").toString("utf16le");
}

const homeSpellings =
  /\$\{?env:(?:HOME|USERPROFILE)\}?|\$HOME\b|\[(?:System\.)?Environment\]::GetFolderPath\(\s*["']?(?:\[Environment\+SpecialFolder\]::)?UserProfile["']?\s*\)|\$PROFILE\b/gi;

const removers = new Set(["remove-item", "ri", "rm", "rmdir", "rd", "del", "erase"]);
const contentWriters = new Set([
  "set-content",
  "sc",
  "add-content",
  "ac",
  "out-file",
  "new-item",
  "ni",
  "tee-object",
  "tee",
]);
const copiers = new Set(["copy-item", "copy", "cpi", "cp", "move-item", "move", "mi", "mv"]);
/** Parameters that take a value and are not the path operand itself. */
const valuedCmdletParameters =
  /^-(value|encoding|filter|include|exclude|itemtype|type|credential|stream|inputobject)$/i;
const pathParameters = /^-(path|literalpath|lp|pspath|filepath|destination)$/i;

/** One statement's words, quotes removed (PowerShell quoting is close enough to bash's for paths). */
function wordsOf(statement: string): string[] {
  return [...statement.matchAll(/'([^']*)'|"([^"]*)"|(\S+)/g)].map(
    (match) => match[1] ?? match[2] ?? match[3] ?? "",
  );
}

const quoted = (text: string) => `'${text.replaceAll("'", "'\\''")}'`;

/** The statement as the shell command that does the same to files, or the statement itself. */
export function spelledAsShell(statement: string, piped: string[]): string {
  const words = wordsOf(statement.trim());
  const cmdlet = (words[0] ?? "").toLowerCase();
  const operands: string[] = [];
  const named: string[] = [];
  for (let index = 1; index < words.length; index++) {
    const word = words[index] as string;
    if (pathParameters.test(word)) named.push(words[++index] ?? "");
    else if (valuedCmdletParameters.test(word)) index += 1;
    else if (!word.startsWith("-")) operands.push(word);
  }
  const paths = [...named, ...operands].map((path) => path.replace(/^~(?=\/|\\|$)/, "~"));
  if (removers.has(cmdlet)) {
    const targets = paths.length > 0 ? paths : piped;
    return targets.length > 0 ? `rm -rf -- ${targets.map(shellPath).join(" ")}` : statement;
  }
  if (contentWriters.has(cmdlet) && paths[0] !== undefined) return `tee -- ${shellPath(paths[0])}`;
  if (copiers.has(cmdlet) && paths.length >= 2) {
    const destination =
      named.length > 0 ? (named[named.length - 1] as string) : (paths[paths.length - 1] as string);
    return `cp -r -- ${shellPath(paths[0] as string)} ${shellPath(destination)}`;
  }
  return statement;
}

/** `~` stays a tilde the shell expands; anything else is quoted. */
function shellPath(path: string): string {
  const tilde = /^~(?:[/\\](.*))?$/.exec(path);
  if (tilde) return tilde[1] ? `~/${quoted(tilde[1].replaceAll("\\", "/"))}` : "~";
  return quoted(path);
}

/** Paths a pipeline's first element lists (`Get-ChildItem ~ | Remove-Item -Recurse`). */
const listers = new Set(["get-childitem", "gci", "ls", "dir", "get-item", "gi", "resolve-path", "rvpa"]);

export function powershellAsShell(code: string): string[] {
  const normalized = code.replace(homeSpellings, "~");
  const out: string[] = [];
  for (const statement of normalized.split(/[;\n]/)) {
    let piped: string[] = [];
    for (const element of statement.split("|")) {
      out.push(spelledAsShell(element, piped));
      const words = wordsOf(element.trim());
      piped = listers.has((words[0] ?? "").toLowerCase())
        ? words.slice(1).filter((word) => !word.startsWith("-"))
        : [];
    }
  }
  return out.filter((line) => line.trim() !== "");
}

/** Findings about the code's effect that stand whatever its syntax: denials and a person's calls. */
const decisiveAsks = new Set([
  "path.outside-roots",
  "path.git-internals",
  "path.autorun",
  "path.env-file",
  "command.persistence",
  "command.privilege",
  "command.check-change",
  "command.discards-work",
]);

function isDecisiveFinding(finding: Finding): boolean {
  return finding.decision === "deny" || decisiveAsks.has(finding.rule);
}

/**
 * Judges PowerShell code: the ask every inline code gets, its strings (`iex 'rm -rf ~'`), and its
 * cmdlets spelled as shell, of which only denials and person-only findings are kept (its own syntax
 * is not bash, so the shell reader's other complaints about it say nothing).
 */
export function powershellFindings(
  program: string,
  args: string[],
  scope: WalkScope,
  readFile: (path: string) => string | null,
): void {
  const input = powershellInput(program, args);
  const code = input.code ?? (input.file !== null ? readFile(input.file) : null);
  if (input.code !== null || input.file !== null) {
    scope.add({
      decision: "ask",
      rule: "command.inline-code",
      reason: `${program} runs PowerShell code${input.file ? ` from ${input.file}` : ""}`,
    });
  }
  if (code === null) return;
  scope.inlineCode(code);
  for (const line of powershellAsShell(code)) {
    const shadow: Analysis = { findings: [] };
    scope.analyze(line, shadow);
    for (const finding of shadow.findings) if (isDecisiveFinding(finding)) scope.add(finding);
  }
}

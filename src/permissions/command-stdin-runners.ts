import { scriptInterpreters } from "./command-network.js";
import { shellEscape } from "./command-operands.js";
import { processSubstitutionText, readScript } from "./command-stdin.js";
import type { PermissionContext } from "./context.js";
import { runsInputAsShell } from "./inline-code-spelled.js";
import type { Stmt } from "./shell-ast.js";
import { evaluateWord } from "./shell-words.js";
import { type Invocation, isShell, unwrap } from "./wrappers.js";

/**
 * Programs that run what arrives on their standard input, and how that text is judged:
 * - "shell": a shell, and `at`/`batch`, which hand their input to a shell later (outside the sandbox);
 * - "crontab": `crontab -` installs its input; each line's command is judged;
 * - "code": an interpreter reading its program (`python3 <<EOF`, `echo … | node`);
 * - "builder": xargs and parallel append the words of their input to a command.
 */
export type StdinJudge = "shell" | "crontab" | "code" | "builder" | "escapes" | "makefile";

const codeReaders = new Set<string>([
  ...scriptInterpreters,
  "tclsh",
  "wish",
  "expect",
  "lua",
  "rscript",
  "r",
  "julia",
  "deno",
]);

/** Interactive tools that read commands on their input and have a shell escape (`!cmd`, `.shell cmd`). */
const escapeReaders = new Set([
  "sqlite3",
  "ed",
  "red",
  "ex",
  "gdb",
  "psql",
  "mysql",
  "mariadb",
  "ftp",
  "sftp",
  "lftp",
  // dc runs `!cmd`; m4 runs `syscmd(cmd)` and `esyscmd(cmd)`.
  "dc",
  "m4",
]);

export function stdinJudge(program: string): StdinJudge | null {
  if (isShell(program) || program === "at" || program === "batch") return "shell";
  if (program === "crontab") return "crontab";
  if (codeReaders.has(program)) return "code";
  if (program === "xargs" || program === "parallel") return "builder";
  if (escapeReaders.has(program)) return "escapes";
  return null;
}

/**
 * How a statement's program treats its standard input, by its words: besides the programs above,
 * `make -f -` (a Makefile on stdin: its recipes run) and code that runs each input line as a command
 * (`awk '{system($0)}'`, `perl -ne 'system $_'`). The outermost reader wins (`sudo bash <<EOF`).
 */
export function statementStdinJudge(stmt: Stmt, context: PermissionContext): StdinJudge | null {
  if (stmt.command?.type !== "call" || stmt.command.args.length === 0) return null;
  const words = stmt.command.args.map((word) => evaluateWord(word, context));
  for (const invocation of unwrap(words).invocations) {
    const args = invocation.words.slice(1).map((word) => word.text);
    // Before the interpreter's own judge: with code given inline, its input is data the code runs.
    if (runsInputAsShell(args.join(" "))) return "shell";
    const judge = stdinJudge(invocation.program);
    if (judge) return judge;
    // `source /dev/stdin <<< …`, `. /dev/fd/0`: the shell itself reads the script from its input.
    if ((invocation.program === "source" || invocation.program === ".") && stdinFile(args[0])) return "shell";
    if ((invocation.program === "make" || invocation.program === "gmake") && makeReadsStdin(args))
      return "makefile";
    if (privilegedShellReadsStdin(invocation.program, args)) return "shell";
  }
  return null;
}

/**
 * `sudo -s`, `sudo -i`, `doas -s` with no command, and `su` without `-c`: a root shell that reads
 * its script from standard input (`sudo -s <<< 'rm -rf ~'`).
 */
function privilegedShellReadsStdin(program: string, args: string[]): boolean {
  if (program === "su")
    return !args.some((arg) => arg === "-c" || arg === "--command" || arg.startsWith("--command="));
  if (program !== "sudo" && program !== "doas") return false;
  const shell = args.some(
    (arg) => /^-[A-Za-z]*[si][A-Za-z]*$/.test(arg) || arg === "--shell" || arg === "--login",
  );
  if (!shell) return false;
  const valued = new Set(["-u", "-g", "-h", "-p", "-C", "-U", "-T", "-r", "-t", "-D", "--user", "--group"]);
  for (let index = 0; index < args.length; index++) {
    const arg = args[index] as string;
    if (valued.has(arg)) index += 1;
    else if (!arg.startsWith("-") && !/^[A-Za-z_][A-Za-z0-9_]*=/.test(arg)) return false;
  }
  return true;
}

const stdinFile = (file: string | undefined) =>
  file === "/dev/stdin" || file === "/dev/fd/0" || file === "/proc/self/fd/0";

/** `make -f -`, `make --file=/dev/stdin`, `make -f/dev/fd/0`. */
function makeReadsStdin(args: string[]): boolean {
  const stdin = (file: string | undefined) => file === "-" || stdinFile(file);
  return args.some(
    (arg, index) =>
      ((arg === "-f" || arg === "--file" || arg === "--makefile") && stdin(args[index + 1])) ||
      (/^--(?:make)?file=/.test(arg) && stdin(arg.slice(arg.indexOf("=") + 1))) ||
      (/^-f./.test(arg) && stdin(arg.slice(2))),
  );
}

/** The commands behind the shell escapes in a tool's input, one per line. */
export function escapedCommands(text: string): string {
  return text
    .split("\n")
    .map((line) => shellEscape(line))
    .filter((line): line is string => line !== null)
    .join("\n");
}

/**
 * The text a statement's own redirections give its standard input: a here-document, a here-string,
 * or a small file (`< script.sh`). Null when there is none the engine can read. An interpreter given a
 * script file reads data, not code, on its input: null then.
 */
export function stdinText(stmt: Stmt, context: PermissionContext): string | null {
  if (stmt.command?.type !== "call" || stmt.command.args.length === 0) return null;
  const words = stmt.command.args.map((word) => evaluateWord(word, context));
  const invocations = unwrap(words).invocations;
  const final = invocations.find((invocation) => stdinJudge(invocation.program) !== null);
  if (final && stdinJudge(final.program) === "code") {
    // `deno run -`: the subcommand is not a script file.
    const operands = final.words
      .slice(1)
      .filter((word, index) => !word.text.startsWith("-") && !(index === 0 && word.text === "run"));
    if (operands.length > 0) return null;
  }
  for (const redirect of stmt.redirects) {
    if ((redirect.op === "<<" || redirect.op === "<<-") && redirect.heredoc)
      return evaluateWord(redirect.heredoc, context).text;
    if (redirect.op === "<<<" && redirect.word) return evaluateWord(redirect.word, context).text;
    if (redirect.op === "<" && redirect.word) {
      const substituted = processSubstitutionText(redirect.word, context);
      if (substituted !== null) return substituted;
      const file = evaluateWord(redirect.word, context);
      if (file.exact) return readScript(file.text, context.cwd);
    }
  }
  return null;
}

/** A crontab's lines as the commands cron would run (the five time fields or an `@reboot` dropped). */
export function crontabCommands(text: string): string {
  return text
    .split("\n")
    .map((line) => line.trim())
    .filter((line) => line !== "" && !line.startsWith("#") && !/^[A-Za-z_]+=/.test(line))
    .map((line) =>
      line.startsWith("@") ? line.replace(/^@\S+\s+/, "") : line.split(/\s+/).slice(5).join(" "),
    )
    .join("\n");
}

/** `parallel [options] CMD ARGS…`: the command parallel runs for each input word. */
export function parallelCommand(invocations: Invocation[]): Invocation | undefined {
  const at = invocations.findIndex((invocation) => invocation.program === "parallel");
  const parallel = invocations[at];
  if (!parallel) return undefined;
  const words = parallel.words.slice(1);
  let index = 0;
  while (index < words.length && (words[index]?.text ?? "").startsWith("-")) {
    const text = words[index]?.text ?? "";
    index += /^-[jPSN]$|^--(jobs|sshlogin|delay|timeout)$/.test(text) ? 2 : 1;
  }
  const end = words.findIndex((word) => word.text === ":::" || word.text === "::::");
  const command = words.slice(index, end === -1 ? words.length : end);
  if (command.length === 0) return undefined;
  const program = command[0]?.text.split("/").pop() ?? "";
  return { words: command, program, via: [...parallel.via, "parallel"] };
}

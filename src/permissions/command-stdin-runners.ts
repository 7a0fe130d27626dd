import { scriptInterpreters } from "./command-network.js";
import { shellEscape } from "./command-operands.js";
import { readScript } from "./command-stdin.js";
import type { PermissionContext } from "./context.js";
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
export type StdinJudge = "shell" | "crontab" | "code" | "builder" | "escapes";

const codeReaders = new Set<string>([
  ...scriptInterpreters,
  "tclsh",
  "wish",
  "expect",
  "lua",
  "rscript",
  "r",
  "julia",
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
]);

export function stdinJudge(program: string): StdinJudge | null {
  if (isShell(program) || program === "at" || program === "batch") return "shell";
  if (program === "crontab") return "crontab";
  if (codeReaders.has(program)) return "code";
  if (program === "xargs" || program === "parallel") return "builder";
  if (escapeReaders.has(program)) return "escapes";
  return null;
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
    const operands = final.words.slice(1).filter((word) => !word.text.startsWith("-"));
    if (operands.length > 0) return null;
  }
  for (const redirect of stmt.redirects) {
    if ((redirect.op === "<<" || redirect.op === "<<-") && redirect.heredoc)
      return evaluateWord(redirect.heredoc, context).text;
    if (redirect.op === "<<<" && redirect.word) return evaluateWord(redirect.word, context).text;
    if (redirect.op === "<" && redirect.word) {
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

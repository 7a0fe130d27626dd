import { statSync } from "node:fs";
import { basename, resolve } from "node:path";
import { producedText, readScript } from "./command-stdin.js";
import { stdinText } from "./command-stdin-runners.js";
import type { PermissionContext } from "./context.js";
import type { Stmt } from "./shell-ast.js";
import { evaluateWord } from "./shell-words.js";

/**
 * `echo 'all:; rm -rf ~' > Makefile && make`, `printf 'rm -rf ~' > x.sh; bash x.sh`: a file written
 * earlier in the same command and run later did not exist (or said something else) when the command
 * was judged. The walker records what `echo`/`printf`/`cat <<EOF` write through a redirection, and
 * judges that text where a later program runs the file: a shell given it, make, a package manager's
 * scripts (every string of a written package.json).
 */
export class WrittenFiles {
  private readonly files = new Map<string, string>();

  record(stmt: Stmt, context: PermissionContext, piped: string | null = null): void {
    this.recordCopies(stmt, context, piped);
    for (const redirect of stmt.redirects) {
      if (![">", ">>", ">|", "&>", "&>>"].includes(redirect.op) || !redirect.word) continue;
      const target = evaluateWord(redirect.word, context);
      const text = target.exact ? producedText(stmt, context) : null;
      if (text === null) continue;
      const path = resolve(context.cwd, target.text);
      const before = redirect.op.endsWith(">>") ? (this.files.get(path) ?? "") : "";
      this.files.set(path, `${before}${text}\n`);
    }
  }

  /**
   * `tee FILE <<< text`, `echo … | tee FILE`, and `cp`/`mv` of a file (written here or on disk): the
   * copy says what its source says.
   */
  private recordCopies(stmt: Stmt, context: PermissionContext, piped: string | null): void {
    if (stmt.command?.type !== "call" || stmt.command.args.length === 0) return;
    const words = stmt.command.args.map((word) => evaluateWord(word, context));
    const program = basename(words[0]?.text ?? "");
    const operands = words.slice(1).filter((word) => !word.text.startsWith("-"));
    if (operands.some((word) => !word.exact)) return;
    if (program === "tee") {
      const text = piped ?? stdinText(stmt, context);
      if (text === null) return;
      const append = words.some((word) => /^-[a-z]*a|^--append$/.test(word.text));
      for (const operand of operands) {
        const path = resolve(context.cwd, operand.text);
        this.files.set(path, `${append ? (this.files.get(path) ?? "") : ""}${text}\n`);
      }
      return;
    }
    if ((program === "cp" || program === "mv") && operands.length === 2) {
      const [source, target] = operands.map((word) => word.text) as [string, string];
      const text = this.text(source, context.cwd) ?? readScript(source, context.cwd);
      if (text === null) return;
      const into = resolve(context.cwd, target);
      const path = isDirectory(into) ? resolve(into, basename(source)) : into;
      this.files.set(path, text);
    }
  }

  /** The text of a script file a program runs: written by this command, or on disk. */
  script(path: string, cwd: string): string | null {
    return this.text(path, cwd) ?? readScript(path, cwd);
  }

  /** What the command itself wrote to `path`, if it did. */
  text(path: string, cwd: string): string | undefined {
    return this.files.get(resolve(cwd, path));
  }

  /** Shell lines a program would run from files this command wrote (make recipes, package scripts). */
  runBy(program: string, args: string[], cwd: string): string[] {
    const lines: string[] = [];
    for (const [path, text] of this.files) {
      const name = basename(path);
      const here = resolve(cwd, name) === path;
      if (program === "make" && (/^(GNUmakefile|makefile|Makefile)$/.test(name) ? here : args.includes(name)))
        lines.push(...text.split("\n").map((line) => line.replace(/^[^:\t]*:[^=]?;?/, "").trim()));
      if (/^(npm|npx|yarn|pnpm|bun)$/.test(program) && name === "package.json" && here)
        for (const match of text.matchAll(/"((?:[^"\\]|\\.)*)"/g)) lines.push(match[1] as string);
    }
    return lines.filter((line) => line !== "");
  }
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    // Missing (or unreadable): cp makes a file of that name.
    return false;
  }
}

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
  /** Files this command writes with content the engine cannot read before it runs (`base64 -d > x.sh`). */
  private readonly unknownFiles = new Set<string>();

  record(stmt: Stmt, context: PermissionContext, piped: string | null = null): void {
    this.recordCopies(stmt, context, piped);
    for (const redirect of stmt.redirects) {
      if (![">", ">>", ">|", "&>", "&>>"].includes(redirect.op) || !redirect.word) continue;
      const target = evaluateWord(redirect.word, context);
      const text = target.exact ? (this.catOfWritten(stmt, context) ?? producedText(stmt, context)) : null;
      if (text === null) {
        if (target.exact && !target.text.startsWith("/dev/"))
          this.unknownFiles.add(resolve(context.cwd, target.text));
        continue;
      }
      const path = resolve(context.cwd, target.text);
      this.unknownFiles.delete(path);
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
      if (text === null) {
        for (const operand of operands) this.unknownFiles.add(resolve(context.cwd, operand.text));
        return;
      }
      const append = words.some((word) => /^-[a-z]*a|^--append$/.test(word.text));
      for (const operand of operands) {
        const path = resolve(context.cwd, operand.text);
        this.files.set(path, `${append ? (this.files.get(path) ?? "") : ""}${text}\n`);
      }
      return;
    }
    // `ln -s cleanup.sh y.sh`: the link says what its target says (pass 10).
    const linked = program === "ln" && words.some((word) => /^-[a-zA-Z]*s|^--symbolic$/.test(word.text));
    // Pass 11: a hard link (`ln a b`), `install a b` and `dd if=a of=b` are copies too; `dd of=b` writes
    // its input.
    const copies = program === "cp" || program === "mv" || program === "ln" || program === "install";
    const dd = program === "dd" ? ddFiles(words.map((word) => word.text)) : null;
    if (dd?.output && !dd.input) {
      const text = piped ?? stdinText(stmt, context);
      const path = resolve(context.cwd, dd.output);
      if (text === null) this.unknownFiles.add(path);
      else this.files.set(path, `${text}\n`);
      return;
    }
    const pair =
      dd?.output && dd.input
        ? [dd.input, dd.output]
        : copies
          ? operands.slice(-2).map((word) => word.text)
          : [];
    if (pair.length === 2 && (program !== "install" || operands.length >= 2)) {
      const [source, target] = pair as [string, string];
      const into = resolve(context.cwd, target);
      const path = isDirectory(into) ? resolve(into, basename(source)) : into;
      // A relative link target is read from the link's folder.
      const from = linked ? resolve(path, "..", source) : resolve(context.cwd, source);
      const text = this.files.get(from) ?? readScript(from, context.cwd);
      if (text === null) {
        if (this.unknownFiles.has(from)) this.unknownFiles.add(path);
        return;
      }
      this.files.set(path, text);
      return;
    }
    // Downloads and copies whose content the engine does not see: `curl -o x.sh URL`, `wget -O x.sh`.
    const output = downloadTarget(
      program,
      words.map((word) => word.text),
    );
    if (output !== null) this.unknownFiles.add(resolve(context.cwd, output));
  }

  /** `cat x.sh > y.sh` after writing x.sh: the text this command gave the files cat reads. */
  private catOfWritten(stmt: Stmt, context: PermissionContext): string | null {
    if (stmt.command?.type !== "call" || stmt.command.args.length === 0) return null;
    const words = stmt.command.args.map((word) => evaluateWord(word, context));
    if (basename(words[0]?.text ?? "") !== "cat") return null;
    const files = words.slice(1).filter((word) => !word.text.startsWith("-"));
    if (files.length === 0 || files.some((word) => !word.exact)) return null;
    const texts = files.map((word) => this.files.get(resolve(context.cwd, word.text)));
    if (texts.every((text) => text === undefined)) return null;
    return files.map((word, index) => texts[index] ?? readScript(word.text, context.cwd) ?? "").join("");
  }

  /** The text of a script file a program runs: written by this command, or on disk. */
  script(path: string, cwd: string): string | null {
    return this.text(path, cwd) ?? readScript(path, cwd);
  }

  /** Whether this command writes `path` with content the engine cannot read before it runs. */
  unknown(path: string, cwd: string): boolean {
    const absolute = resolve(cwd, path);
    return this.unknownFiles.has(absolute) && !this.files.has(absolute);
  }

  /** Every file this command wrote with known text (path, text). */
  entries(): IterableIterator<[string, string]> {
    return this.files.entries();
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
      const named = args.some((arg) => arg === name || arg === `-f${name}` || arg.endsWith(`=${name}`));
      if (program === "make" && (/^(GNUmakefile|makefile|Makefile)$/.test(name) ? here : named))
        lines.push(...text.split("\n").map((line) => line.replace(/^[^:\t]*:[^=]?;?/, "").trim()));
      if (/^(npm|npx|yarn|pnpm|bun)$/.test(program) && name === "package.json" && here)
        for (const match of text.matchAll(/"((?:[^"\\]|\\.)*)"/g)) lines.push(match[1] as string);
    }
    return lines.filter((line) => line !== "");
  }
}

/** `dd if=A of=B`: the files dd reads and writes (either may be missing: standard input or output). */
function ddFiles(args: string[]): { input?: string; output?: string } {
  const files: { input?: string; output?: string } = {};
  for (const arg of args) {
    if (arg.startsWith("if=")) files.input = arg.slice(3);
    if (arg.startsWith("of=")) files.output = arg.slice(3);
  }
  return files;
}

/** The file `curl -o F`, `curl --output F`, `wget -O F` writes, or null. */
function downloadTarget(program: string, args: string[]): string | null {
  const names =
    program === "curl" ? ["-o", "--output"] : program === "wget" ? ["-O", "--output-document"] : [];
  for (let index = 0; index < args.length; index++) {
    const arg = args[index] as string;
    for (const name of names) {
      if (arg === name) return args[index + 1] ?? null;
      if (name.startsWith("--") && arg.startsWith(`${name}=`)) return arg.slice(name.length + 1);
      if (!name.startsWith("--") && arg.startsWith(name) && arg.length > 2) return arg.slice(2);
    }
  }
  return null;
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    // Missing (or unreadable): cp makes a file of that name.
    return false;
  }
}

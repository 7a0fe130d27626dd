import { basename, resolve } from "node:path";
import { producedText } from "./command-stdin.js";
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

  record(stmt: Stmt, context: PermissionContext): void {
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

/**
 * `sed -n 1,20p file`, `sed -n '/start/,/end/p' file`, `sed 's/a/b/g' file` print and never write, as
 * long as the script has no command that writes (`w`, `W`, `s///w`), runs (`e`, `s///e`) or reads
 * another file (`r`, `R`), and sed is not told to edit in place or read its script from a file. The
 * script is parsed the way GNU sed splits it (the delimiter is found by skipping backslash escapes
 * only; bracket expressions are not special), and anything the parser does not know is refused.
 */
const simpleCommands = new Set([
  "p",
  "P",
  "=",
  "l",
  "q",
  "Q",
  "d",
  "D",
  "n",
  "N",
  "g",
  "G",
  "h",
  "H",
  "x",
  "z",
]);
const substituteFlags = /^[gpiImM0-9]*$/;

export function sedScriptIsReadonly(script: string): boolean {
  let at = 0;
  const text = script;
  const skipBlanks = () => {
    while (at < text.length && /[ \t]/.test(text[at] as string)) at++;
  };
  /** A `/regex/` (or `\cregexc`) whose opening delimiter is at `at`; returns false when unterminated. */
  const delimited = (delimiter: string): boolean => {
    while (at < text.length) {
      const char = text[at] as string;
      if (char === "\\") {
        at += 2;
        continue;
      }
      if (char === "\n") return false;
      at++;
      if (char === delimiter) return true;
    }
    return false;
  };
  const address = (): boolean => {
    const char = text[at];
    if (char === undefined) return true;
    if (/[0-9]/.test(char)) {
      while (at < text.length && /[0-9~]/.test(text[at] as string)) at++;
      return true;
    }
    if (char === "$") {
      at++;
      return true;
    }
    if (char === "/") {
      at++;
      if (!delimited("/")) return false;
      while (text[at] === "I" || text[at] === "M") at++;
      return true;
    }
    return true;
  };
  while (at < text.length) {
    while (at < text.length && /[ \t\n;]/.test(text[at] as string)) at++;
    if (at >= text.length) return true;
    if (!address()) return false;
    skipBlanks();
    if (text[at] === ",") {
      at++;
      skipBlanks();
      if (text[at] === "+" || text[at] === "~") at++;
      if (!address()) return false;
      skipBlanks();
    }
    if (text[at] === "!") {
      at++;
      skipBlanks();
    }
    const command = text[at];
    if (command === undefined) return false;
    at++;
    if (command === "{" || command === "}") continue;
    if (command === "s") {
      if (text[at] !== "/") return false;
      at++;
      if (!delimited("/") || !delimited("/")) return false;
      const flagsStart = at;
      while (at < text.length && !/[ \t\n;}]/.test(text[at] as string)) at++;
      if (!substituteFlags.test(text.slice(flagsStart, at))) return false;
    } else if (simpleCommands.has(command)) {
      if (command === "q" || command === "Q" || command === "l") {
        skipBlanks();
        while (at < text.length && /[0-9]/.test(text[at] as string)) at++;
      }
    } else {
      return false;
    }
    skipBlanks();
    const next = text[at];
    if (next !== undefined && !/[\n;}]/.test(next)) return false;
  }
  return true;
}

/** Options that keep sed a printer; everything else (`-i`, `-f`, `--in-place`, `-s`…) is not trusted. */
const flagOptions = new Set([
  "--quiet",
  "--silent",
  "--regexp-extended",
  "--posix",
  "--null-data",
  "--zero-terminated",
  "--unbuffered",
  "--sandbox",
  "--separate",
  "--debug",
  "--help",
  "--version",
]);
const shortFlags = "nErszu";

/**
 * The files a read-only sed invocation reads, or a reason it is not read-only. Scripts come from
 * `-e`/`--expression` or, without one, the first operand.
 */
export function judgeSed(args: string[]): { files: string[] } | { refused: string } {
  const scripts: string[] = [];
  const operands: string[] = [];
  let optionsDone = false;
  for (let index = 0; index < args.length; index++) {
    const arg = args[index] as string;
    if (optionsDone || arg === "-" || !arg.startsWith("-")) {
      operands.push(arg);
      continue;
    }
    if (arg === "--") {
      optionsDone = true;
      continue;
    }
    if (arg === "-e" || arg === "--expression") {
      scripts.push(args[index + 1] ?? "");
      index += 1;
      continue;
    }
    if (arg.startsWith("--expression=")) {
      scripts.push(arg.slice("--expression=".length));
      continue;
    }
    if (flagOptions.has(arg)) continue;
    if (arg.startsWith("--")) return { refused: `${arg} is not a listed read-only sed option` };
    for (let letter = 1; letter < arg.length; letter++) {
      const char = arg[letter] as string;
      if (char === "e") {
        const rest = arg.slice(letter + 1);
        scripts.push(rest !== "" ? rest : (args[index + 1] ?? ""));
        if (rest === "") index += 1;
        break;
      }
      if (!shortFlags.includes(char))
        return { refused: `${arg} (-${char}) is not a listed read-only sed option` };
    }
  }
  if (scripts.length === 0) {
    const first = operands.shift();
    if (first === undefined) return { refused: "has no script" };
    scripts.push(first);
  }
  const unsafe = scripts.find((script) => !sedScriptIsReadonly(script));
  if (unsafe !== undefined)
    return {
      refused: `script ${JSON.stringify(unsafe)} has a command that writes, runs or reads another file (or one not known to be safe)`,
    };
  return { files: operands };
}

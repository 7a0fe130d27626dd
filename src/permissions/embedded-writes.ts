import { sedScripts } from "./command-options.js";

/**
 * Files a program writes because its own script says so, not its options: sed's `w FILE`, awk's
 * `print > "FILE"`, sqlite3's `.output FILE`/`writefile()`/`VACUUM INTO`, find's `-fprint FILE`, vim's `-c 'w FILE'`. They are
 * write targets like a redirection's: outside the workspace a person's call, in a system folder a
 * hardline (`sed -n 'w /etc/x'`), in `.git` or an autorun file a person's call.
 */
export function embeddedWriteTargets(program: string, args: string[]): string[] {
  switch (program) {
    case "sed":
    case "gsed":
      return sedScripts(args).flatMap(sedWrites);
    case "awk":
    case "gawk":
    case "mawk":
    case "nawk":
      return args.flatMap((arg) => [...arg.matchAll(/>>?\s*"([^"]+)"/g)].map((match) => match[1] as string));
    case "find":
      // `-fprint FILE`, `-fprint0 FILE`, `-fls FILE`, `-fprintf FILE FORMAT`.
      return args.flatMap((arg, index) =>
        /^-(fprint0?|fprintf|fls)$/.test(arg) && args[index + 1] !== undefined
          ? [args[index + 1] as string]
          : [],
      );
    case "sqlite3":
      return args.flatMap(sqliteWrites);
    case "vim":
    case "vi":
    case "nvim":
    case "view":
    case "ex":
      return vimWrites(args);
    default:
      return [];
  }
}

const sedAddress = String.raw`(?:\d+|\$|\/(?:\\.|[^/\\\n])*\/)`;
const sedWrite = new RegExp(
  String.raw`(?:^|[;\n{}])\s*(?:${sedAddress}(?:\s*,\s*${sedAddress})?\s*!?\s*)?[wW]\s+([^\n]+)`,
  "g",
);

function sedWrites(script: string): string[] {
  return [...script.matchAll(sedWrite)].map((match) => (match[1] as string).trim());
}

function sqliteWrites(arg: string): string[] {
  const out: string[] = [];
  for (const line of arg.split(/[\n;]/)) {
    const dot = /^\s*\.(?:output|once|save|backup(?:\s+\S+)?)\s+(['"]?)([^'"|\s-][^'"]*)\1\s*$/.exec(line);
    if (dot?.[2]) out.push(dot[2]);
  }
  for (const match of arg.matchAll(
    /\b(?:writefile\s*\(\s*|vacuum\s+into\s+|attach\s+(?:database\s+)?)'([^']+)'/gi,
  ))
    out.push(match[1] as string);
  return out;
}

function vimWrites(args: string[]): string[] {
  const commands: string[] = [];
  args.forEach((arg, index) => {
    if ((arg === "--cmd" || /^-[a-zA-Z]*c$/.test(arg)) && args[index + 1] !== undefined)
      commands.push(args[index + 1] as string);
    else if (arg.startsWith("+")) commands.push(arg.slice(1));
  });
  const out: string[] = [];
  for (const command of commands) {
    for (const part of command.split("|")) {
      const write = /^\s*:*\s*(?:w|write|wq|x|xit|sav|saveas|up|update)!?\s+([^!\s].*)$/.exec(part);
      if (write?.[1]) out.push(write[1].trim());
    }
  }
  return out;
}

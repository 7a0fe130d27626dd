import { existsSync } from "node:fs";
import { resolve } from "node:path";
import type { WalkScope } from "./command-walk-scope.js";
import type { Finding } from "./shell-words.js";
import { isShell } from "./wrappers.js";
import type { WrittenFiles } from "./written-files.js";

/**
 * Pass 12: a program file the engine must read to judge what runs — a shell's script, a sourced file,
 * a startup file (`BASH_ENV`, `ENV`, `--rcfile`), a build definition named on the command line (`make
 * -f`, `ninja -f`, `just -f`, `cmake -P`) — that is not there when the command is judged. Either the
 * command fails, or something in it makes the file in a way the engine does not follow (`python3 gen.py;
 * bash out.sh`): what runs is unknown, like `eval` (`command.eval`, never `--yes`). A file this command
 * writes with text the engine knows is judged as written, as before.
 */
export function unreadProgramFindings(
  program: string,
  args: string[],
  written: WrittenFiles,
  scope: WalkScope,
): void {
  for (const file of programFilesNamed(program, args)) unreadFile(file, written, scope);
  // `just` and `ninja` with their default files: the recipes they run meet the hardline like make's.
  const recipes = buildRecipes(program, args, written, scope.context.cwd);
  for (const line of recipes) scope.innerDenies(line);
}

/** `BASH_ENV=x.sh bash -c …`, `ENV=x.sh sh -i`: the startup file a shell reads first. */
export function unreadStartupFile(
  name: string,
  value: string,
  program: string | undefined,
  written: WrittenFiles,
  scope: WalkScope,
): void {
  // `ENV=production npm start` is an ordinary setting: only an interactive POSIX shell reads $ENV.
  if (name === "BASH_ENV" || (name === "ENV" && program !== undefined && isShell(program)))
    unreadFile(value, written, scope);
}

function unreadFile(file: string, written: WrittenFiles, scope: WalkScope): void {
  const cwd = scope.context.cwd;
  if (file === "" || file === "-" || file.startsWith("/dev/")) return;
  if (written.text(file, cwd) !== undefined || written.unknown(file, cwd)) return;
  if (existsSync(resolve(cwd, file))) return;
  scope.add(unreadFinding(file));
}

export function unreadFinding(file: string): Finding {
  return {
    decision: "ask",
    rule: "command.eval",
    reason: `${file} is run as a program file but is not there to be read: whatever makes it runs unseen, so a person decides`,
  };
}

/** The program files the command names: a shell's script, `source F`, `--rcfile F`, `make -f F`… */
function programFilesNamed(program: string, args: string[]): string[] {
  if (isShell(program)) return shellFiles(args);
  if (program === "source" || program === ".") return args.slice(0, 1);
  const options = Object.hasOwn(fileOptions, program) ? fileOptions[program] : undefined;
  if (!options) return [];
  const files: string[] = [];
  args.forEach((arg, index) => {
    for (const option of options) {
      if (arg === option && args[index + 1] !== undefined) files.push(args[index + 1] as string);
      else if (option.startsWith("--") && arg.startsWith(`${option}=`))
        files.push(arg.slice(option.length + 1));
      else if (!option.startsWith("--") && arg.startsWith(option) && arg.length > option.length)
        files.push(arg.slice(option.length));
    }
  });
  return files;
}

const fileOptions: Record<string, string[]> = {
  make: ["-f", "--file", "--makefile"],
  gmake: ["-f", "--file", "--makefile"],
  ninja: ["-f"],
  just: ["-f", "--justfile"],
  cmake: ["-P", "-C"],
};

/** `bash x.sh`, `bash --rcfile r.sh -i`: the files a shell reads as its program (none with `-c`/`-s`). */
function shellFiles(args: string[]): string[] {
  const files: string[] = [];
  for (let index = 0; index < args.length; index++) {
    const arg = args[index] as string;
    if (arg === "--rcfile" || arg === "--init-file") {
      if (args[index + 1] !== undefined) files.push(args[index + 1] as string);
      index += 1;
    } else if (/^[-+][oO]$/.test(arg)) index += 1;
    else if (/^-[a-zA-Z]*[cs][a-zA-Z]*$/.test(arg)) return files;
    else if (arg === "--") {
      if (args[index + 1] !== undefined) files.push(args[index + 1] as string);
      return files;
    } else if (!arg.startsWith("-") && !arg.startsWith("+")) {
      files.push(arg);
      return files;
    }
  }
  return files;
}

/** The shell lines `just` (recipe bodies) and `ninja` (`command =`) would run from their files. */
function buildRecipes(program: string, args: string[], written: WrittenFiles, cwd: string): string[] {
  const named = programFilesNamed(program, args);
  const candidates =
    named.length > 0
      ? named
      : program === "just"
        ? ["justfile", "Justfile", ".justfile"]
        : program === "ninja"
          ? ["build.ninja"]
          : [];
  if (program !== "just" && program !== "ninja") return [];
  for (const file of candidates) {
    const text = written.script(file, cwd);
    if (text === null) continue;
    const lines = text.split("\n");
    if (program === "ninja")
      return lines.flatMap((line) => /^\s+command\s*=\s*(.*)$/.exec(line)?.slice(1) ?? []);
    return lines
      .filter((line) => /^(\t| {2,})\S/.test(line))
      .map((line) => line.trim().replace(/^[@-]+/, ""));
  }
  return [];
}

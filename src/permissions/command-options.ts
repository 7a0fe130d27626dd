/**
 * Options whose value is a command line some program hands to a shell: `ssh -o ProxyCommand=…`,
 * `git -c core.sshCommand=…`, `rsync -e …`, `tar --to-command=…`, `sort --compress-program=…`,
 * `vim -c '!…'`, `less +!…`, `man -P …`, `git rebase --exec …`. The command asks anyway (none of
 * these programs is read-only with such an option); the value is parsed and held to the hardline
 * too, so `ssh -o ProxyCommand='rm -rf ~' x` is denied like `rm -rf ~`.
 */

/** git settings whose value is a program or shell command git runs. */
export const gitCommandKeys =
  /^(core\.(sshcommand|pager|editor|fsmonitor|askpass|gitproxy|hookspath)|sequence\.editor|diff\.external|diff\..+\.(command|textconv)|merge\..+\.driver|filter\..+\.(clean|smudge|process)|alias\..+|credential(\..+)?\.helper|gpg(\..+)?\.program|pager\..+|web\.browser|browser\..+\.cmd|man\..+\.cmd|interactive\.difffilter|(difftool|mergetool)\..+\.cmd|sendemail\.(tocmd|cccmd|smtpserver)|remote\..+\.(uploadpack|receivepack|vcs)|uploadpack\.packobjectshook|ssh\.variant|protocol\..+\.allow|include\.path|includeif\..+\.path)$/i;

export interface CommandValues {
  /** Shell command lines. */
  scripts: string[];
  /** Code for an interpreter (emacs --eval). */
  code: string[];
}

function shellOfGitValue(value: string): string {
  return value.startsWith("!") ? value.slice(1) : value;
}

/** The value of `-x V`, `-xV`, `--long V` or `--long=V` at `index`, and how many words it took. */
function valueAt(args: string[], index: number, names: string[]): { value: string; used: number } | null {
  const arg = args[index] as string;
  for (const name of names) {
    if (arg === name)
      return args[index + 1] !== undefined ? { value: args[index + 1] as string, used: 2 } : null;
    if (name.startsWith("--") && arg.startsWith(`${name}=`))
      return { value: arg.slice(name.length + 1), used: 1 };
    if (!name.startsWith("--") && name.length === 2 && arg.startsWith(name) && arg.length > 2)
      return { value: arg.slice(2), used: 1 };
  }
  return null;
}

export function commandValuedOptions(program: string, args: string[]): CommandValues {
  const out: CommandValues = { scripts: [], code: [] };
  const each = (names: string[], take: (value: string) => void) => {
    for (let index = 0; index < args.length; index++) {
      const found = valueAt(args, index, names);
      if (found) take(found.value);
    }
  };
  switch (program) {
    case "ssh":
    case "scp":
    case "sftp":
    case "autossh":
      each(["-o"], (value) => {
        const match =
          /^\s*(ProxyCommand|LocalCommand|KnownHostsCommand|RemoteCommand)\s*[=\s]\s*(.*)$/is.exec(value);
        if (match?.[2]) out.scripts.push(match[2]);
      });
      break;
    case "wget":
      // `wget -e 'use_askpass=cmd'`: a wgetrc command that names a program wget runs for passwords.
      each(["-e", "--execute"], (value) => {
        const match = /^\s*use_?askpass\s*=\s*(.*)$/is.exec(value);
        if (match?.[1]) out.scripts.push(match[1]);
      });
      each(["--use-askpass"], (value) => out.scripts.push(value));
      break;
    case "git": {
      each(["-c"], (value) => {
        const equals = value.indexOf("=");
        if (equals > 0 && gitCommandKeys.test(value.slice(0, equals)))
          out.scripts.push(shellOfGitValue(value.slice(equals + 1)));
      });
      let sub = 0;
      while (sub < args.length && (args[sub] as string).startsWith("-")) {
        const global = args[sub] as string;
        sub += ["-c", "-C", "--git-dir", "--work-tree", "--namespace", "--config-env"].includes(global)
          ? 2
          : 1;
      }
      const subcommand = args[sub];
      const rest = args.slice(sub + 1);
      if (subcommand === "config") {
        const operands = rest.filter((arg) => !arg.startsWith("-"));
        if (operands.length >= 2 && gitCommandKeys.test(operands[0] as string))
          out.scripts.push(shellOfGitValue(operands[1] as string));
      }
      // `git grep -O'rm -rf ~'`: the pager's value is optional, so only glued or after `=` (pass 11).
      if (subcommand === "grep")
        for (const arg of rest) {
          const pager = /^(?:-O|--open-files-in-pager=)(.+)$/s.exec(arg);
          if (pager?.[1]) out.scripts.push(pager[1]);
        }
      if (subcommand === "rebase") {
        for (let index = 0; index < rest.length; index++) {
          const found = valueAt(rest, index, ["-x", "--exec"]);
          if (found) out.scripts.push(found.value);
        }
      }
      if (subcommand === "submodule" && rest.includes("foreach")) {
        out.scripts.push(
          rest
            .slice(rest.indexOf("foreach") + 1)
            .filter((arg) => arg !== "--recursive")
            .join(" "),
        );
      }
      if (subcommand === "filter-branch") {
        for (let index = 0; index < rest.length; index++) {
          const found = valueAt(rest, index, [
            "--tree-filter",
            "--index-filter",
            "--msg-filter",
            "--commit-filter",
            "--env-filter",
            "--parent-filter",
            "--tag-name-filter",
          ]);
          if (found) out.scripts.push(found.value);
        }
      }
      break;
    }
    case "rsync":
      each(["-e", "--rsh"], (value) => out.scripts.push(value));
      break;
    case "tar":
    case "gtar":
    case "bsdtar":
      each(
        ["--to-command", "--use-compress-program", "-I", "--info-script", "--new-volume-script", "-F"],
        (value) => out.scripts.push(value),
      );
      each(["--checkpoint-action"], (value) => {
        if (value.startsWith("exec=")) out.scripts.push(value.slice(5));
      });
      break;
    case "sort":
      each(["--compress-program"], (value) => out.scripts.push(value));
      break;
    case "vim":
    case "vi":
    case "nvim":
    case "view":
    case "ex":
    case "vimdiff":
      each(["-c", "--cmd"], (value) => pushVimShell(value, out));
      // `ex -sc '%!cmd'`: a cluster of flags ending in -c takes the next word.
      args.forEach((arg, index) => {
        const next = args[index + 1];
        if (/^-[a-zA-Z]+c$/.test(arg) && next !== undefined) pushVimShell(next, out);
      });
      for (const arg of args) if (arg.startsWith("+")) pushVimShell(arg.slice(1), out);
      break;
    case "less":
    case "more":
      for (const arg of args) {
        const match = /^\+\+?!(.*)$/s.exec(arg);
        if (match?.[1]) out.scripts.push(match[1]);
      }
      break;
    case "man":
      each(["-P", "--pager", "-H", "--html"], (value) => out.scripts.push(value));
      break;
    case "emacs":
    case "emacsclient":
      each(["--eval"], (value) => out.code.push(value));
      break;
    case "npm":
    case "npx":
      each(["-c", "--call"], (value) => out.scripts.push(value));
      break;
    case "gdb":
      // `-ex 'python os.system(…)'`, `-ex 'guile (system …)'`: gdb's embedded interpreters.
      each(["-ex", "-iex", "--eval-command", "--init-eval-command"], (value) => {
        const embedded = /^\s*(?:python-interactive|python|py|pi|guile|gu)\b\s*(.*)$/s.exec(value);
        if (embedded?.[1]) out.code.push(embedded[1]);
      });
      break;
    case "socat":
      // `EXEC:'rm -rf ~',pty`, `SYSTEM:…`: socat addresses that start a program.
      for (const arg of args) {
        const started = /^(?:exec|system):(.*)$/is.exec(arg);
        if (!started?.[1]) continue;
        out.scripts.push(started[1]);
        const beforeOptions = started[1].split(",")[0];
        if (beforeOptions) out.scripts.push(beforeOptions);
      }
      break;
    case "sed":
    case "gsed":
      for (const script of sedScripts(args)) out.scripts.push(...sedExecutedReplacements(script));
      break;
  }
  // `git clone 'ext::sh -c rm% -rf% ~'` (and every other git command that takes a remote): the ext
  // transport runs its URL as a command, with `% ` for a space.
  if (program === "git")
    for (const arg of args) {
      const external = /^ext::(.*)$/s.exec(arg);
      // Both readings: git's argv, and the text with every escape undone (stricter for a bare program).
      if (external?.[1])
        out.scripts.push(
          extTransportCommand(external[1]),
          external[1].replace(/%(.)/g, (_all, next: string) => (next === " " || next === "%" ? next : "x")),
        );
    }
  return out;
}

/**
 * The argv git's ext transport runs, as shell text: words split at spaces, `% ` a space inside a
 * word, `%%` a percent sign, `%s`/`%S`/`%G`/`%V` placeholders (pass 11: `ext::sh -c rm% -rf% ~` runs
 * `sh -c 'rm -rf ~'`, not `sh -c rm`).
 */
function extTransportCommand(url: string): string {
  const words: string[] = [];
  let current = "";
  for (let index = 0; index < url.length; index++) {
    const character = url[index] as string;
    if (character === "%" && index + 1 < url.length) {
      const next = url[++index] as string;
      current += next === " " || next === "%" ? next : "x";
    } else if (character === " ") {
      if (current !== "") words.push(current);
      current = "";
    } else current += character;
  }
  if (current !== "") words.push(current);
  return words
    .map((word) => (/^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`))
    .join(" ");
}

/** A sed command line's scripts: `-e S`, `--expression=S`, or the first operand. */
export function sedScripts(args: string[]): string[] {
  const scripts: string[] = [];
  let explicit = false;
  for (let index = 0; index < args.length; index++) {
    const found = valueAt(args, index, ["-e", "--expression"]);
    if (found) {
      scripts.push(found.value);
      explicit = true;
      index += found.used - 1;
    }
  }
  if (!explicit) {
    const operand = args.find((arg) => !arg.startsWith("-"));
    if (operand !== undefined) scripts.push(operand);
  }
  return scripts;
}

/**
 * GNU sed's `s/…/REPLACEMENT/e` runs the pattern space after the substitution as a command: with a
 * whole-line pattern that is the replacement text (`s/.*\/rm -rf ~/e`). Any delimiter.
 */
function sedExecutedReplacements(script: string): string[] {
  const out: string[] = [];
  const substitution = /s([^\\\n\w\s])((?:\\.|(?!\1)[^\\])*)\1((?:\\.|(?!\1)[^\\])*)\1([a-zA-Z0-9]*)/g;
  for (const match of script.matchAll(substitution)) {
    const delimiter = match[1] as string;
    if (!(match[4] ?? "").includes("e")) continue;
    out.push((match[3] ?? "").replaceAll(`\\${delimiter}`, delimiter).replaceAll("\\n", "\n"));
  }
  return out;
}

/**
 * vim's `-c '!cmd'`, `+':!cmd'`, `-c '%!cmd'` (a range filtered through a command), `r !cmd`,
 * `w !cmd`, `silent !cmd`, `normal :!cmd`, `-c 'call system("cmd")'`: the text after every `!` is
 * judged as a command (after a `w!` that is a file name, which is harmless as a command).
 */
function pushVimShell(command: string, out: CommandValues): void {
  for (let index = command.indexOf("!"); index >= 0; index = command.indexOf("!", index + 1)) {
    const rest = command.slice(index + 1);
    if (rest.trim() !== "") out.scripts.push(rest);
  }
  if (/system\s*\(|!/.test(command)) out.code.push(command);
  // Pass 11: `nvim -c 'lua os.execute("rm -rf ~")'`, `:py3 …`, `:perl …`: vim's embedded interpreters.
  const embedded = /^\s*:?\s*(?:lua|luado|py3?|python3?|pythonx|pyx|perl|ruby)\b\s*(.*)$/s.exec(command);
  if (embedded?.[1]) out.code.push(embedded[1]);
}

/**
 * Settings git takes from its environment rather than its command line: `GIT_CONFIG_COUNT=1
 * GIT_CONFIG_KEY_0=core.pager GIT_CONFIG_VALUE_0='rm -rf ~' git log`, and `--config-env=KEY=VAR`
 * naming a variable the same command sets. The values of program-running keys, as shell.
 */
export function gitEnvironmentScripts(environment: ReadonlyMap<string, string>, args: string[]): string[] {
  const settings: string[] = [];
  const count = Number(environment.get("GIT_CONFIG_COUNT") ?? "0");
  for (let index = 0; index < Math.min(count, 64); index++) {
    const key = environment.get(`GIT_CONFIG_KEY_${index}`);
    const value = environment.get(`GIT_CONFIG_VALUE_${index}`);
    if (key !== undefined && value !== undefined) settings.push(`${key}=${value}`);
  }
  for (let index = 0; index < args.length; index++) {
    const found = valueAt(args, index, ["--config-env"]);
    const equals = found?.value.lastIndexOf("=") ?? -1;
    if (!found || equals <= 0) continue;
    const value = environment.get(found.value.slice(equals + 1));
    if (value !== undefined) settings.push(`${found.value.slice(0, equals)}=${value}`);
  }
  return commandValuedOptions(
    "git",
    settings.flatMap((setting) => ["-c", setting]),
  ).scripts;
}

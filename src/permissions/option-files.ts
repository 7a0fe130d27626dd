/**
 * Files a program runs because an option names them (pass 10): `awk -f prog.awk`, `sed -f script.sed`
 * (its `e` command and `s///e` run shell, `w` writes), `ssh -F config` (ProxyCommand, LocalCommand,
 * KnownHostsCommand, `Match exec`), `gdb -x`, `sqlite3 -init`, `psql -f` (shell escapes), `vim -S`/`-u`
 * (`!cmd` lines), `bash --rcfile`, `expect -f`, `find -files0-from` (the folders it walks) and
 * `xargs -a` (the words it appends). The text is read like a script file given to a shell: written
 * earlier in the command or on disk, and judged the way the program reads it.
 */
export type ProgramFileKind = "shell" | "code" | "sed" | "ssh-config" | "escapes" | "vim" | "words" | "roots";

export interface ProgramFile {
  file: string;
  kind: ProgramFileKind;
}

/** The options that name a file, per program, and how the file is read. */
const fileOptions: Record<string, { names: string[]; kind: ProgramFileKind }[]> = {
  awk: [{ names: ["-f", "--file", "-E", "--exec", "-i", "--include"], kind: "code" }],
  sed: [{ names: ["-f", "--file"], kind: "sed" }],
  ssh: [{ names: ["-F"], kind: "ssh-config" }],
  gdb: [{ names: ["-x", "--command", "-ix", "--init-command"], kind: "escapes" }],
  sqlite3: [{ names: ["-init", "--init"], kind: "escapes" }],
  psql: [{ names: ["-f", "--file"], kind: "escapes" }],
  vim: [{ names: ["-S", "-u", "-U"], kind: "vim" }],
  bash: [{ names: ["--rcfile", "--init-file"], kind: "shell" }],
  expect: [{ names: ["-f"], kind: "code" }],
  find: [{ names: ["-files0-from"], kind: "roots" }],
  xargs: [{ names: ["-a", "--arg-file"], kind: "words" }],
};
const sameAs: Record<string, string> = {
  gawk: "awk",
  mawk: "awk",
  nawk: "awk",
  gsed: "sed",
  scp: "ssh",
  sftp: "ssh",
  autossh: "ssh",
  nvim: "vim",
  vi: "vim",
  view: "vim",
  ex: "vim",
  vimdiff: "vim",
  gfind: "find",
};

export function programFiles(program: string, args: string[]): ProgramFile[] {
  const key = Object.hasOwn(sameAs, program) ? (sameAs[program] as string) : program;
  const options = Object.hasOwn(fileOptions, key) ? fileOptions[key] : undefined;
  if (!options) return [];
  const found: ProgramFile[] = [];
  for (let index = 0; index < args.length; index++) {
    const arg = args[index] as string;
    if (arg === "--") break;
    for (const { names, kind } of options) {
      for (const name of names) {
        if (arg === name && args[index + 1] !== undefined)
          found.push({ file: args[index + 1] as string, kind });
        else if (name.startsWith("--") && arg.startsWith(`${name}=`))
          found.push({ file: arg.slice(name.length + 1), kind });
        else if (/^-[A-Za-z]$/.test(name) && arg.startsWith(name) && arg.length > 2 && kind !== "roots")
          found.push({ file: arg.slice(2), kind });
      }
    }
  }
  return found;
}

/** Commands an ssh configuration runs: ProxyCommand, LocalCommand, KnownHostsCommand, `Match exec`. */
export function sshConfigCommands(text: string): string[] {
  const commands: string[] = [];
  for (const line of text.split("\n")) {
    const keyed =
      /^\s*(?:ProxyCommand|LocalCommand|KnownHostsCommand|RemoteCommand)\s*(?:=\s*|\s+)(.+)$/i.exec(line);
    if (keyed?.[1]) commands.push(keyed[1]);
    const match = /^\s*Match\b.*?\bexec\s+(?:"([^"]*)"|(\S+))/i.exec(line);
    if (match) commands.push(match[1] ?? match[2] ?? "");
  }
  return commands.filter((command) => command.trim() !== "");
}

/** Files an ssh configuration pulls in (`Include`), which may hold commands too. */
export function sshConfigIncludes(text: string): string[] {
  return text.split("\n").flatMap((line) => /^\s*Include\s+(.+)$/i.exec(line)?.[1]?.split(/\s+/) ?? []);
}

/**
 * The shell commands a sed script runs: an `e COMMAND` line (with or without an address), and
 * `s/…/…/e` is found by the inline reader. `e` alone runs the pattern space: unknowable, so its
 * presence alone is reported by the caller.
 */
export function sedExecCommands(text: string): { commands: string[]; runsPatternSpace: boolean } {
  const commands: string[] = [];
  let runsPatternSpace = false;
  const address = String.raw`(?:(?:\d+|\$|\/(?:\\.|[^/\\\n])*\/)(?:,(?:\d+|\$|\/(?:\\.|[^/\\\n])*\/))?)?!?`;
  for (const piece of text.split(/[\n;]/)) {
    const match = new RegExp(`^\\s*${address}\\s*e(?:\\s+(.*))?$`).exec(piece);
    if (!match) continue;
    if (match[1]?.trim()) commands.push(match[1]);
    else runsPatternSpace = true;
  }
  return { commands, runsPatternSpace };
}

/** vim script lines that run shell: the text after `!` (`:!cmd`, `%!cmd`, `r !cmd`, `call system(…)`). */
export function vimShellCommands(text: string): string[] {
  const commands: string[] = [];
  for (const line of text.split("\n")) {
    const bang = /(?:^|[\s:%,\d])!(.+)$/.exec(line);
    if (bang?.[1]) commands.push(bang[1]);
    const system = /system\s*\(\s*['"](.+?)['"]/.exec(line);
    if (system?.[1]) commands.push(system[1]);
  }
  return commands;
}

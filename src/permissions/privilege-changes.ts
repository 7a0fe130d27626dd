import type { Finding } from "./shell-words.js";

/**
 * Pass 12: commands that hand out privileges or change accounts. A set-user-ID or set-group-ID bit
 * (`chmod u+s`, `chmod 4755`, `install -m 2755`), file capabilities (`setcap`), account and group
 * changes (`passwd`, `usermod`, `chsh`, `newgrp`, `sg`, `visudo`) and a user namespace mapped to root
 * (`unshare -r`) outlast the sandbox or act beyond it: a person decides (`command.privilege`).
 */
const accountPrograms = new Set([
  "passwd",
  "chpasswd",
  "chsh",
  "chfn",
  "chage",
  "usermod",
  "useradd",
  "userdel",
  "adduser",
  "deluser",
  "groupadd",
  "groupmod",
  "groupdel",
  "gpasswd",
  "newgrp",
  "visudo",
  "vipw",
  "vigr",
  "setcap",
  "capsh",
  "setpriv",
]);

export function privilegeChangeFinding(program: string, args: string[]): Finding | null {
  const why = (what: string): Finding => ({
    decision: "ask",
    rule: "command.privilege",
    reason: `${what}; privileges and accounts are a person's call`,
  });
  if (accountPrograms.has(program)) return why(`${program} changes accounts, groups or privileges`);
  // `sg` is also ast-grep's short name: its subcommands are searches.
  const first = args.find((arg) => !arg.startsWith("-"));
  if (program === "sg" && !/^(run|scan|test|new|lsp|completions|help)$/.test(first ?? ""))
    return why("sg runs a command as another group");
  if (program === "machinectl" && /^(shell|login)$/.test(first ?? ""))
    return why(`machinectl ${first} opens a shell as another user`);
  if (program === "chmod" && args.some(setsIdBit)) return why("chmod sets a set-user-ID or set-group-ID bit");
  // `chown root f`, `chgrp 0 f`: handing a file to root (only root may; a person decides).
  if ((program === "chown" || program === "chgrp") && /^(root|0)([:.]|$)/.test(first ?? ""))
    return why(`${program} gives a file to root`);
  if (program === "install" || program === "mkdir") {
    const mode = modeValue(args);
    if (mode !== null && setsIdBit(mode))
      return why(`${program} -m ${mode} sets a set-user-ID or set-group-ID bit`);
  }
  if (
    program === "unshare" &&
    args.some((arg) => /^(-[a-zA-Z]*r[a-zA-Z]*|--map-root-user|--map-user(=.*)?)$/.test(arg))
  )
    return why("unshare maps the user to root in a new namespace");
  return null;
}

/** `u+s`, `g=s`, `+s`, `a+rxs`, `4755`, `2755`, `06755`: a mode that sets set-user-ID or set-group-ID. */
function setsIdBit(mode: string): boolean {
  if (/^[0-7]{4,5}$/.test(mode)) return (Number.parseInt(mode.slice(-4, -3), 8) & 6) !== 0;
  return mode.split(",").some((clause) => /^[ugoa]*[+=][rwxXt]*s/.test(clause));
}

function modeValue(args: string[]): string | null {
  for (let index = 0; index < args.length; index++) {
    const arg = args[index] as string;
    if ((arg === "-m" || arg === "--mode") && args[index + 1] !== undefined) return args[index + 1] as string;
    if (arg.startsWith("--mode=")) return arg.slice("--mode=".length);
    if (/^-m./.test(arg)) return arg.slice(2);
  }
  return null;
}

import { basename } from "node:path";
import { gitCommandKeys } from "./command-options.js";
import { ownEntry } from "./own-key.js";
import { programFamily } from "./program-family.js";
import type { EvaluatedWord, Finding } from "./shell-words.js";
import { foldForComparison } from "./unicode.js";

/** One program invocation inside a simple command; wrappers like `sudo` or `env` yield several. */
export interface Invocation {
  /** argv, evaluated; argv[0] is the program as written. */
  words: EvaluatedWord[];
  /** Folded basename of argv[0] ("/bin/rm", "r\m" and "ｒｍ" are all "rm"). */
  program: string;
  /** The wrappers this invocation runs under, outermost first. */
  via: string[];
}

export interface Unwrapped {
  /** Outermost first; the last one is what really runs. */
  invocations: Invocation[];
  findings: Finding[];
  /** Shell source handed to another shell (`bash -c`, `eval`, `su -c`, `watch`): parsed and judged too. */
  innerScripts: string[];
}

export function programName(word: EvaluatedWord | undefined): string {
  if (!word) return "";
  return programFamily(basename(foldForComparison(word.text)));
}

interface WrapperSpec {
  /**
   * Options that take no value. When listed, any other option is refused (`command.wrapper-option`):
   * a wrapper option we do not know could change directory, write a file or run something.
   */
  flags?: string[];
  /** Options that take a separate value (a `--long=value` or `-xVALUE` form is handled by itself). */
  valueOptions?: string[];
  /** Options that make the wrapper change directory, write files or run elsewhere: they ask. */
  unsafeOptions?: Record<string, string>;
  /** Count of leading positional operands before the wrapped command (timeout DURATION, flock FILE). */
  operands?: number;
  /** Finding added when this wrapper is used; transparent wrappers add none. */
  finding?: Finding;
  /** Accept leading NAME=VALUE words (env). */
  assignments?: boolean;
  /** `nice -10`: a bare number is an option. */
  numeric?: boolean;
}

const privilege: Finding = {
  decision: "ask",
  rule: "command.privilege",
  reason: "the command runs with other privileges (sudo, doas, su, pkexec)",
};
const notReadonly = (reason: string): Finding => ({ decision: "ask", rule: "command.not-readonly", reason });

const wrappers: Record<string, WrapperSpec> = {
  sudo: {
    valueOptions: ["-u", "-g", "-h", "-p", "-C", "-U", "-T", "-r", "-t", "-D", "--user", "--group"],
    finding: privilege,
    // `sudo PAGER='rm -rf ~' git log`: sudo takes VAR=value words before the command, like env.
    assignments: true,
  },
  doas: { valueOptions: ["-u", "-C"], finding: privilege },
  pkexec: { valueOptions: ["--user"], finding: privilege },
  run0: { valueOptions: ["--user", "-u"], finding: privilege },
  gosu: { operands: 1, finding: privilege },
  chroot: { operands: 1, finding: privilege },
  env: {
    flags: ["-i", "--ignore-environment", "-0", "--null", "-v", "--debug", "--list-signal-handling", "-"],
    valueOptions: ["-u", "--unset", "--default-signal", "--ignore-signal", "--block-signal"],
    unsafeOptions: {
      "-C": "changes the directory the command runs in",
      "--chdir": "changes the directory the command runs in",
    },
    assignments: true,
  },
  nice: { flags: [], valueOptions: ["-n", "--adjustment"], numeric: true },
  nohup: { flags: [] },
  setsid: { flags: ["-c", "--ctty", "-f", "--fork", "-w", "--wait"] },
  builtin: { flags: [] },
  exec: { flags: ["-c", "-l"], valueOptions: ["-a"] },
  command: { flags: ["-p"] },
  timeout: {
    flags: ["--foreground", "--preserve-status", "-v", "--verbose"],
    valueOptions: ["-s", "--signal", "-k", "--kill-after"],
    operands: 1,
  },
  stdbuf: { flags: [], valueOptions: ["-i", "-o", "-e", "--input", "--output", "--error"] },
  ionice: { flags: ["-t", "--ignore"], valueOptions: ["-c", "--class", "-n", "--classdata"] },
  taskset: { flags: ["-a", "--all-tasks", "-c", "--cpu-list"], operands: 1 },
  flock: {
    valueOptions: ["-w", "-E", "--timeout", "--conflict-exit-code"],
    operands: 1,
    finding: notReadonly("flock creates its lock file"),
  },
  unbuffer: { flags: ["-p"] },
  time: {
    flags: ["-p", "--portability", "-v", "--verbose", "-q", "--quiet"],
    valueOptions: ["-f", "--format"],
    unsafeOptions: {
      "-o": "writes its report to a file",
      "--output": "writes its report to a file",
      "-a": "appends its report to a file",
      "--append": "appends its report to a file",
    },
  },
  busybox: { flags: [] },
  strace: {
    valueOptions: ["-o", "-e", "-p", "-s", "-E", "-u", "-P", "-I", "-b", "-a", "-O", "-S", "-X"],
    finding: notReadonly("strace traces the program and can write its log anywhere"),
  },
  ltrace: {
    valueOptions: ["-o", "-e", "-p", "-s", "-u", "-n", "-l"],
    finding: notReadonly("ltrace traces the program and can write its log anywhere"),
  },
  valgrind: { finding: notReadonly("valgrind runs the program under a tool that can write logs anywhere") },
  caffeinate: { flags: ["-d", "-i", "-m", "-s", "-u"], valueOptions: ["-t", "-w"] },
  chronic: { flags: ["-e", "-v"] },
  "systemd-run": {
    valueOptions: ["-p", "--property", "-u", "--unit", "-E", "--setenv", "--uid", "--gid", "-M", "--machine"],
    finding: notReadonly("systemd-run starts the command as a service outside Mercury's control"),
  },
  unshare: { finding: notReadonly("unshare runs the command in new namespaces") },
  nsenter: { valueOptions: ["-t", "--target"], finding: privilege },
  firejail: { finding: notReadonly("firejail runs the command under its own profile") },
  runuser: { valueOptions: ["-u", "-g", "-G", "--user", "--group"], finding: privilege },
  xargs: {
    valueOptions: [
      "-I",
      "-i",
      "-n",
      "-P",
      "-d",
      "-L",
      "-l",
      "-s",
      "-a",
      "-E",
      "-e",
      "--arg-file",
      "--delimiter",
      "--max-args",
    ],
    finding: {
      decision: "ask",
      rule: "command.xargs",
      reason: "xargs builds and runs commands from its input",
    },
  },
};

const shells = new Set(["sh", "bash", "zsh", "dash", "ksh", "mksh", "fish", "csh", "tcsh", "ash"]);

export function isShell(program: string): boolean {
  return shells.has(program);
}

export function unwrap(words: EvaluatedWord[], via: string[] = [], depth = 0): Unwrapped {
  const program = programName(words[0]);
  const here: Invocation = { words, program, via };
  const out: Unwrapped = { invocations: [here], findings: [], innerScripts: [] };
  if (depth > 8 || words.length === 0) return out;
  const texts = words.map((word) => word.text);

  if (program === "eval") {
    out.findings.push({
      decision: "ask",
      rule: "command.inline-code",
      reason: "eval runs its arguments as shell code",
    });
    // What eval runs is only known once the shell has expanded it: never covered by allow-all.
    out.findings.push({ decision: "ask", rule: "command.eval", reason: "eval builds the command it runs" });
    out.innerScripts.push(texts.slice(1).join(" "));
    return out;
  }
  if (isShell(program)) {
    const script = shellInlineScript(texts);
    if (script !== null) {
      out.findings.push({
        decision: "ask",
        rule: "command.inline-code",
        reason: `${program} -c runs inline shell code`,
      });
      out.innerScripts.push(script);
    }
    return out;
  }
  if (program === "su") {
    out.findings.push(privilege);
    const index = texts.findIndex((text) => text === "-c" || text === "--command");
    const script = index >= 0 ? texts[index + 1] : undefined;
    if (script !== undefined) out.innerScripts.push(script);
    return out;
  }
  if (program === "watch") {
    out.findings.push({
      decision: "ask",
      rule: "command.inline-code",
      reason: "watch runs its arguments through a shell",
    });
    let index = 1;
    while (index < texts.length && (texts[index] as string).startsWith("-")) {
      index += ["-n", "--interval", "-d"].includes(texts[index] as string) ? 2 : 1;
    }
    out.innerScripts.push(texts.slice(index).join(" "));
    return out;
  }
  const spec = ownEntry(wrappers, program);
  if (!spec) return out;
  // `command -v NAME` only looks a name up; `-v` must come before the name (`command ls -v` runs ls).
  if (program === "command" && commandLookup(texts)) return out;
  if (program === "env") {
    // `env -S "rm -rf /"` splits its argument into a command line of its own.
    // Also inside a cluster (`-iS'rm -rf /'`, `-vS cmd`): the text after S is the command line.
    const split = texts.findIndex(
      (text) => /^-[A-Za-z0-9]*S/.test(text) || text.startsWith("--split-string"),
    );
    if (split >= 0) {
      const text = texts[split] as string;
      const afterS = text.startsWith("--") ? "" : text.slice(text.indexOf("S") + 1);
      const inline = text.startsWith("--split-string=") ? text.slice(15) : afterS !== "" ? afterS : undefined;
      const rest = inline !== undefined ? texts.slice(split + 1) : texts.slice(split + 2);
      out.findings.push({
        decision: "ask",
        rule: "command.inline-code",
        reason: "env -S runs a command line given as a string",
      });
      out.innerScripts.push([inline ?? texts[split + 1] ?? "", ...rest].join(" "));
      return out;
    }
  }
  if (program === "flock") {
    // `flock FILE -c CMD`, `flock -c CMD FILE`: the command line goes to a shell.
    const index = texts.findIndex((text) => text === "-c" || text === "--command");
    if (index >= 0) {
      out.findings.push({
        decision: "ask",
        rule: "command.inline-code",
        reason: "flock -c runs a command line through a shell",
      });
      out.innerScripts.push(texts[index + 1] ?? "");
      return out;
    }
  }
  if (program === "sg" || program === "script") {
    // `sg group -c CMD`, `script -c CMD`: the command line is handed to a shell.
    out.findings.push(
      program === "sg"
        ? privilege
        : { decision: "ask", rule: "command.inline-code", reason: "script -c runs a command line" },
    );
    const index = texts.findIndex((text) => text === "-c" || text === "--command");
    const script = index >= 0 ? texts[index + 1] : program === "sg" ? texts.slice(2).join(" ") : undefined;
    if (script) out.innerScripts.push(script);
    return out;
  }
  if (spec.finding) out.findings.push(spec.finding);

  let index = 1;
  let operands = spec.operands ?? 0;
  while (index < words.length) {
    const text = texts[index] as string;
    if (text === "--") {
      index += 1;
      break;
    }
    // env takes any NAME=VALUE before the command, `BASH_FUNC_ls%%=() { …; }` too.
    if (spec.assignments && /^[^=-][^=]*=/.test(text)) {
      const equals = text.indexOf("=");
      const script = variableScript(text.slice(0, equals), text.slice(equals + 1));
      if (script !== null) out.innerScripts.push(script);
      out.findings.push({
        decision: "ask",
        rule: "command.assignment",
        reason: `${program} sets ${text.split("=")[0]}, which can change what the command does`,
      });
      index += 1;
      continue;
    }
    if (text.startsWith("-") && (text !== "-" || program === "env")) {
      const name = text.startsWith("--") ? (text.split("=")[0] as string) : text;
      const attached = !text.startsWith("--") && text.length > 2 ? text.slice(0, 2) : null;
      const unsafe = spec.unsafeOptions?.[name] ?? (attached ? spec.unsafeOptions?.[attached] : undefined);
      if (unsafe) {
        out.findings.push({
          decision: "ask",
          rule: "command.wrapper-option",
          reason: `${program} ${text} ${unsafe}`,
        });
        const takes =
          !text.includes("=") && text.length === name.length && (name.startsWith("--") || name.length === 2);
        index += takes ? 2 : 1;
        continue;
      }
      const takesValue = spec.valueOptions?.includes(name) && !text.includes("=");
      const known =
        takesValue ||
        spec.valueOptions?.includes(name) ||
        (attached !== null && spec.valueOptions?.includes(attached)) ||
        spec.flags?.includes(name) ||
        (spec.numeric && /^-\d+$/.test(text));
      if (spec.flags && !known) {
        out.findings.push({
          decision: "ask",
          rule: "command.wrapper-option",
          reason: `${program} ${text} is not a known option of ${program}; it could change what runs or where`,
        });
      }
      index += takesValue ? 2 : 1;
      continue;
    }
    if (operands > 0) {
      operands -= 1;
      index += 1;
      continue;
    }
    break;
  }
  const inner = words.slice(index);
  if (inner.length === 0) return out;
  const nested = unwrap(inner, [...via, program], depth + 1);
  out.invocations.push(...nested.invocations);
  out.findings.push(...nested.findings);
  out.innerScripts.push(...nested.innerScripts);
  return out;
}

function commandLookup(texts: string[]): boolean {
  for (const text of texts.slice(1)) {
    if (!text.startsWith("-")) return false;
    if (/^-[pvV]*[vV][pvV]*$/.test(text)) return true;
  }
  return false;
}

/** The script given to `sh -c` (also `-lc`, `-xc`, `-o x -c`), or null when the shell reads a file or stdin. */
function shellInlineScript(texts: string[]): string | null {
  for (let index = 1; index < texts.length; index++) {
    const text = texts[index] as string;
    if (text === "--") return null;
    if (text === "-o" || text === "+o" || text === "-O" || text === "+O") {
      index += 1;
      continue;
    }
    if (/^-[A-Za-z]*c[A-Za-z]*$/.test(text) || text === "--command") return texts[index + 1] ?? "";
    if (!text.startsWith("-") && !text.startsWith("+")) return null;
  }
  return null;
}

/** Variables a program runs as a command (`GIT_SSH_COMMAND='rm -rf ~' git fetch`): their value is shell. */
export const commandVariables =
  /^(GIT_SSH_COMMAND|GIT_SSH|GIT_PAGER|PAGER|MANPAGER|GIT_EDITOR|EDITOR|VISUAL|GIT_SEQUENCE_EDITOR|GIT_EXTERNAL_DIFF|GIT_ASKPASS|SSH_ASKPASS|SUDO_ASKPASS|GIT_PROXY_COMMAND|RSYNC_RSH|CVS_RSH|BROWSER|LESSOPEN|LESSCLOSE|PROMPT_COMMAND|FCEDIT|DIFFPROG)$/;

/**
 * By convention a variable named for a pager, editor, browser, password prompt or command holds a
 * command line its program runs (`SYSTEMD_PAGER`, `GH_EDITOR`, `KUBE_EDITOR`, `FZF_DEFAULT_COMMAND`,
 * `PSQL_PAGER`): judged as shell like the listed ones, so the next tool's variable is no bypass.
 */
const commandVariableSuffix = /_(PAGER|EDITOR|VISUAL|BROWSER|ASKPASS|COMMAND|CMD|RSH)$/;

/** `LESS='+!rm -rf ~'`, `MORE='+!…'`: the option string of a pager, whose `+!` option runs a command. */
const pagerOptionVariables = new Set(["LESS", "MORE"]);

/** `LESSOPEN='|cmd %s'`: the leading pipe marks a command. */
export function shellOfValue(text: string): string {
  return text.replace(/^\|+/, "");
}

/**
 * The shell a variable's value amounts to, or null when the value is data: command-valued variables
 * (`PAGER`, `GIT_SSH_COMMAND`…), prompts bash expands with command substitution (`PS4='$(rm -rf ~)'`
 * with `-x`), and exported functions bash imports from its environment (`BASH_FUNC_ls%%=() { …; }`).
 */
export function variableScript(name: string, value: string): string | null {
  if (commandVariables.test(name) || commandVariableSuffix.test(name)) return shellOfValue(value);
  if (pagerOptionVariables.has(name)) return /(?:^|\s)\+\+?!(.*)$/s.exec(value)?.[1] ?? null;
  // `GIT_CONFIG_PARAMETERS="'core.pager'='rm -rf ~'"`: git's own quoting of `-c` settings.
  if (name === "GIT_CONFIG_PARAMETERS") {
    const settings = [...value.matchAll(/'([^']*)'(?:='([^']*)')?/g)];
    const scripts = settings
      .filter((setting) => setting[2] !== undefined && gitCommandKeys.test(setting[1] as string))
      .map((setting) => (setting[2] as string).replace(/^!/, ""));
    return scripts.length > 0 ? scripts.join("\n") : null;
  }
  if (/^PS[0-4]$/.test(name)) return `: ${value}`;
  // Startup files a shell reads before its script: non-interactive bash (BASH_ENV), interactive sh (ENV).
  if (name === "BASH_ENV" || name === "ENV") return `bash ${shellQuote(value)}`;
  const exported = /^BASH_FUNC_(.+)%%$/.exec(name);
  if (exported) return `${exported[1]}${value}`;
  return null;
}

function shellQuote(text: string): string {
  return `'${text.replaceAll("'", "'\\''")}'`;
}

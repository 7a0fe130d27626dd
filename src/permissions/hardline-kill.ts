import type { Finding } from "./shell-words.js";

/**
 * Killing every process of the user is `kill -1` by another name: `pkill -u me`, `pkill .`, `pkill -f
 * ''`, `killall -u me`, `killall -r .`, `skill -u me`, `slay me`. The session, the desktop and
 * Mercury itself go down. Judged by what the selection matches, not by the spelling of the pattern.
 */

/** Names a pattern must match to be "every process": init, a shell, a daemon, a desktop, a one-letter name. */
const sampleNames = ["systemd", "init", "bash", "sshd", "Xorg", "node", "a", "mercury"];

/** pkill/pgrep options that take a value (`-u USER`, `-P PPID`…); selectors kill without a pattern. */
const pkillValueOptions = new Set([
  "-u",
  "-U",
  "-g",
  "-G",
  "-P",
  "-s",
  "-t",
  "-F",
  "--signal",
  "--ns",
  "--nslist",
  "--euid",
  "--uid",
  "--pgroup",
  "--group",
  "--parent",
  "--session",
  "--terminal",
  "--pidfile",
]);
const pkillSelectors = /^(-[uUgGPst]|--(euid|uid|pgroup|group|parent|session|terminal))$/;
const killallValueOptions = new Set([
  "-u",
  "--user",
  "-s",
  "--signal",
  "-o",
  "--older-than",
  "-y",
  "--younger-than",
  "-n",
  "--ns",
]);

function matchesEverything(pattern: string, ignoreCase: boolean): boolean {
  let regex: RegExp;
  try {
    regex = new RegExp(pattern, ignoreCase ? "i" : "");
  } catch {
    // Not a pattern JavaScript reads; pkill's own syntax is close enough that it is not "everything".
    return false;
  }
  return sampleNames.every((name) => regex.test(name));
}

export function massKillFinding(program: string, args: string[]): Finding | null {
  const deny = (what: string): Finding => ({
    decision: "deny",
    rule: "hardline.kill-all",
    reason: `${what} kills every process of the user (or the system): the session and Mercury itself go down`,
  });
  if (program === "slay" && args.some((arg) => !arg.startsWith("-"))) return deny(`slay ${args.join(" ")}`);
  if (program === "skill" || program === "snice") {
    if (program === "skill" && args.some((arg) => arg === "-u" || arg === "--user" || /^-u./.test(arg)))
      return deny(`skill ${args.join(" ")}`);
    return null;
  }
  if (program === "pkill") {
    let pattern: string | undefined;
    let selector = false;
    const ignoreCase = args.includes("-i") || args.includes("--ignore-case");
    for (let index = 0; index < args.length; index++) {
      const arg = args[index] as string;
      if (pkillSelectors.test(arg) || /^--(euid|uid|pgroup|group|parent|session|terminal)=/.test(arg))
        selector = true;
      if (/^-[uUgGPst]./.test(arg)) selector = true;
      if (pkillValueOptions.has(arg)) {
        index++;
        continue;
      }
      if (arg === "--") {
        pattern = args[index + 1];
        break;
      }
      if (arg.startsWith("-")) continue;
      pattern = arg;
      break;
    }
    if (pattern === undefined ? selector : matchesEverything(pattern, ignoreCase))
      return deny(`pkill ${args.join(" ")}`);
    return null;
  }
  if (program === "killall") {
    const regex = args.includes("-r") || args.includes("--regexp");
    const ignoreCase = args.includes("-I") || args.includes("--ignore-case");
    const names: string[] = [];
    let byUser = false;
    for (let index = 0; index < args.length; index++) {
      const arg = args[index] as string;
      if (arg === "-u" || arg === "--user" || arg.startsWith("--user=")) byUser = true;
      if (killallValueOptions.has(arg)) {
        index++;
        continue;
      }
      if (arg.startsWith("-") && arg !== "-") continue;
      names.push(arg);
    }
    if (names.length === 0 && byUser) return deny(`killall ${args.join(" ")}`);
    if (regex && names.some((name) => matchesEverything(name, ignoreCase)))
      return deny(`killall ${args.join(" ")}`);
  }
  return null;
}

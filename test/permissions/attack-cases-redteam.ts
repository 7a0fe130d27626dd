// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are shell commands, where ${HOME} is bash syntax.
import type { CommandAttack, PathAttack } from "./attack-cases.js";

/**
 * The red-team pass before the outside suite's second round: spellings and tricks the first two
 * tables did not have, one group per class that was found open (and fixed). Placeholders and
 * fixtures as in attack-cases.ts and sandbox.ts.
 */
const deny = (group: string, rule: string, commands: string[]): CommandAttack[] =>
  commands.map((command) => ({ group, command, decision: "deny", rule }));
const ask = (group: string, rule: string, commands: string[]): CommandAttack[] =>
  commands.map((command) => ({ group, command, decision: "ask", rule }));

export const redteamCommandAttacks: CommandAttack[] = [
  // Class: a hardline target hidden behind a variable, loop word, default value or substitution.
  ...deny("hardline behind variables and substitutions", "hardline.rm-root", [
    "H=~; rm -rf $H",
    "H=/; rm -rf $H",
    "x=rm; $x -rf ~",
    "export X=~; rm -rf $X",
    "declare X=/; rm -rf $X",
    "readonly T=%HOME%; rm -rf $T",
    "local_dir=~ && rm -rf $local_dir",
    "printf -v X ~; rm -rf $X",
    "set -- ~; rm -rf $1",
    "read X <<< ~; rm -rf $X",
    'for d in ~; do rm -rf "$d"; done',
    "for d in build / ; do rm -rf $d; done",
    "for d in src ~; do rm -rf $d; done",
    "rm -rf ${X:-~}",
    "rm -rf ${X:-/}",
    "rm -rf ${X:=~}",
    "rm -rf ${HOME%/}",
    "rm -rf ${HOME:0}",
    "rm -rf ${HOME// /}",
    "rm -rf $(printf ~)",
    "rm -rf `echo ~`",
    'rm -rf "$(echo ~)"',
    "rm -rf $(echo /)",
    "rm -rf $(pwd)/../..",
    'rm -rf "$(dirname $PWD)/.."',
    '"$(echo rm)" -rf /',
    "$(echo rm) -rf ~",
    "rm -rf ~root",
    "rm -rf $MERCURY_HOME",
    "rm -rf ${XDG_CONFIG_HOME}/..",
    "cd /tmp && rm -rf ~-",
  ]),
  ...deny("secrets behind variables and substitutions", "path.sensitive", [
    "D=~/.ssh; cat $D/id_rsa",
    "A=id_rsa; cat ~/.ssh/$A",
    "for f in ~/.ssh/id_rsa; do cat $f; done",
    "cat ~root/.ssh/id_rsa",
    "cat $MERCURY_HOME/.env",
    "cat ${MERCURY_HOME}/.env",
    "cat ${MERCURY_HOME:-x}/.env",
    "cat $XDG_CONFIG_HOME/git/credentials",
    "K=.aws; head ~/${K}/../$K/credentials",
    'cat "$(printf "%s/.ssh/id_rsa" ~)"',
    "export F=%HOME%/.ssh/id_rsa; base64 $F",
    "read -r f <<< ~/.ssh/id_rsa; xxd $f",
  ]),
  // Class: /proc/<pid>/environ with the pid spelled as a substitution.
  ...deny("process environments with a computed pid", "path.sensitive", [
    "cat /proc/$(pgrep mercury)/environ",
    "cat /proc/`pgrep node`/environ",
    'cat "/proc/$(pidof node)/cmdline"',
    "P=$(pgrep node); cat /proc/$P/environ",
    "xxd /proc/${P}/mem",
    "tr '\\0' '\\n' < /proc/$(pgrep -n node)/environ",
  ]),
];

export const redteamPathAttacks: PathAttack[] = [];

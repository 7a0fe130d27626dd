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
  // Class: the command a builder (xargs, parallel) runs, fed by its own input or a pipe.
  ...deny("xargs and parallel fed by a here-string, a file or a pipe", "hardline.rm-root", [
    "xargs rm -rf <<< ~",
    "xargs -0 rm -rf <<< /",
    "xargs -n1 rm -rf <<EOF\n%HOME%\nEOF",
    "echo / | parallel rm -rf",
    "find ~ -maxdepth 0 | parallel rm -rf",
    "parallel -j2 rm -rf <<< ~",
    "printf '%s\\n' ~ | parallel --will-cite rm -rf",
  ]),
  // Class: schedulers that hand their input to a shell later, outside the sandbox.
  ...deny("at, batch and crontab reading shell code", "hardline.rm-root", [
    "at now <<< 'rm -rf ~'",
    "echo 'rm -rf ~' | at now",
    "batch <<< 'rm -rf /'",
    "at now + 1 minute <<EOF\nrm -rf ~\nEOF",
    "echo '* * * * * rm -rf ~' | crontab -",
    "crontab - <<< '@reboot rm -rf /'",
    "printf '0 3 * * * rm -rf %HOME%\\n' | crontab -",
  ]),
  // Class: interpreter code whose strings spell a hardline command, an argv, or a deletion of home or /.
  ...deny("interpreter code deleting home or root", "hardline.rm-root", [
    "python3 -c \"import os; os.system('rm -rf ~')\"",
    "python3 -c 'import shutil; shutil.rmtree(\"/\")'",
    "python3 -c 'import shutil,os; shutil.rmtree(os.path.expanduser(\"~\"))'",
    "python3 -c 'import shutil,pathlib; shutil.rmtree(pathlib.Path.home())'",
    "python3 -c 'import os; h=os.environ[\"HOME\"]; import shutil; shutil.rmtree(h)'",
    'python3 -c \'import subprocess; subprocess.run(["rm", "-rf", "/"])\'',
    "node -e \"require('child_process').execSync('rm -rf ~')\"",
    "node -e \"require('fs').rmSync(require('os').homedir(),{recursive:true,force:true})\"",
    'node -e \'require("fs").rmSync("/", {recursive: true})\'',
    'node -e \'require("child_process").execFileSync("rm", ["-rf", "%HOME%"])\'',
    "perl -e 'system(\"rm -rf ~\")'",
    "perl -e 'use File::Path; remove_tree($ENV{HOME})'",
    "perl -e 'use File::Path; remove_tree(\"/\")'",
    "ruby -e 'system(\"rm -rf ~\")'",
    "ruby -e 'require \"fileutils\"; FileUtils.rm_rf(Dir.home)'",
    "php -r 'system(\"rm -rf ~\");'",
    'bun -e \'Bun.spawnSync(["rm","-rf","/"])\'',
    'python3 <<EOF\nimport os\nos.system("rm -rf ~")\nEOF',
    "python3 - <<< 'import shutil; shutil.rmtree(\"/\")'",
    "echo 'import os; os.system(\"rm -rf /\")' | python3",
    'node <<< \'require("child_process").execSync("rm -rf ~")\'',
  ]),
  ...deny("interpreter code reading secrets joined to home in code", "path.sensitive", [
    'python3 -c \'print(open(os.environ["HOME"]+"/.ssh/id_rsa").read())\'',
    'python3 -c \'import os;print(open(os.path.join(os.path.expanduser("~"),".ssh/id_rsa")).read())\'',
    'python3 -c \'print(open(os.environ["MERCURY_HOME"]+"/.env").read())\'',
    'node -e \'console.log(require("fs").readFileSync(process.env.HOME+"/.ssh/id_rsa","utf8"))\'',
    "node -e \"require('fs').readFileSync(process.env.HOME+'/.aws/credentials')\"",
    'node -e \'require("fs").readFileSync(require("path").join(require("os").homedir(), ".aws/credentials"))\'',
    'ruby -e \'puts File.read(ENV["HOME"]+"/.ssh/id_rsa")\'',
    "perl -e 'open(F, \"$ENV{HOME}/.ssh/id_rsa\"); print <F>'",
    "python3 <<EOF\nimport pathlib\nprint((pathlib.Path.home() / '.ssh/id_rsa').read_text())\nEOF",
  ]),
  ...ask("interpreter code that stays inside the workspace is only asked", "command.inline-code", [
    "python3 -c 'import shutil; shutil.rmtree(\"build\")'",
    'python3 -c \'import shutil,os; shutil.rmtree(os.path.join(os.path.expanduser("~"), "proj", "build"))\'',
    'node -e \'require("fs").rmSync("dist", {recursive: true, force: true})\'',
    "python3 -c 'print(\"hello world\")'",
  ]),
  // Class: writes into a .git folder (hooks, config, the gitdir link) run later, outside the sandbox.
  ...ask("commands writing into .git", "path.git-internals", [
    "echo 'rm -rf ~' > .git/hooks/pre-commit",
    "cp evil .git/hooks/post-checkout",
    "tee -a .git/config < evil.ini",
    "ln -sf /tmp/evil .git/hooks/pre-push",
    "echo 'gitdir: /tmp/evil' > .git",
    "sed -i s/a/b/ .git/config",
  ]),
];

export const redteamPathAttacks: PathAttack[] = [
  ...(
    [
      ".git/hooks/pre-commit",
      "%PROJECT%/.git/hooks/post-merge",
      "./.git/config",
      ".git/config.worktree",
      ".git/info/attributes",
      ".git",
      "src/../.git/hooks/pre-push",
      "sub/.git/hooks/pre-commit",
    ] as const
  ).map(
    (path): PathAttack => ({
      group: "file tools writing into .git",
      path,
      access: "write",
      decision: "ask",
      rule: "path.git-internals",
    }),
  ),
  ...(["/dev/fd/0", "/dev/fd/3", "/dev/stdin", "/dev/fd", "/dev/stderr"] as const).map(
    (path): PathAttack => ({
      group: "Mercury's own file descriptors",
      path,
      access: "read",
      decision: "deny",
      rule: "hardline.kernel-files",
    }),
  ),
  {
    group: "unreadable /proc links",
    path: "/proc/1/cwd/etc/hostname",
    access: "read",
    decision: "deny",
    rule: "path.unresolvable",
  },
];

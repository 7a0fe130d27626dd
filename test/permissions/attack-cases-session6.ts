// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are shell commands and code, where ${h} is JavaScript or bash syntax.
import type { CommandAttack } from "./attack-cases.js";

/**
 * The sixth red-team pass: one group per class that was found open (allowed, or asked in a way
 * `--yes` would approve) and fixed. Placeholders and fixtures as in attack-cases.ts and sandbox.ts.
 */
const deny = (group: string, rule: string, commands: string[]): CommandAttack[] =>
  commands.map((command) => ({ group, command, decision: "deny", rule }));
const ask = (group: string, rule: string, commands: string[]): CommandAttack[] =>
  commands.map((command) => ({ group, command, decision: "ask", rule }));

export const session6CommandAttacks: CommandAttack[] = [
  // Class: interpreter code that computes the home folder (`Dir.home`, `os.homedir()`, `$ENV{HOME}`…)
  // and hands it to a shell string or an argv; only literal `~` was seen before.
  ...deny("home computed in code, then run", "hardline.rm-root", [
    `ruby -e 'system("rm","-rf",Dir.home)'`,
    `ruby -e 'system("rm -rf " + Dir.home)'`,
    `ruby -e 'system("rm -rf #{ENV["HOME"]}")'`,
    `ruby -e 'exec("rm", "-rf", ENV["HOME"])'`,
    `perl -e 'system("rm","-rf",$ENV{HOME})'`,
    `perl -e 'system("rm -rf $ENV{HOME}")'`,
    `python3 -c 'import os; os.system("rm -rf " + os.environ["HOME"])'`,
    `python3 -c 'import os; os.execvp("rm", ["rm","-rf",os.environ["HOME"]])'`,
    `node -e 'require("child_process").spawnSync("rm",["-rf",require("os").homedir()])'`,
    `node -e 'require("child_process").execSync("rm -rf " + require("os").homedir())'`,
    `node -e 'require("child_process").execFileSync("rm",["-rf",require("os").homedir()])'`,
    `bun -e 'Bun.spawnSync(["rm","-rf",process.env.HOME])'`,
    `php -r 'exec("rm -rf " . getenv("HOME"));'`,
    `awk 'BEGIN{system("rm -rf " ENVIRON["HOME"])}'`,
    `lua -e 'os.execute("rm -rf " .. os.getenv("HOME"))'`,
    `deno eval 'new Deno.Command("rm", {args: ["-rf", Deno.env.get("HOME")]}).outputSync()'`,
    `python3 -c 'import os; os.system("rm -rf " + os.environ.get("HOME", ""))'`,
    `python3 -c 'import os,pwd; os.system("rm -rf " + pwd.getpwuid(os.getuid()).pw_dir)'`,
    `node -e 'require("child_process").execSync("rm -rf " + require("os").userInfo().homedir)'`,
  ]),
  // Class: a name assigned the home folder, used later in the code (argv, interpolation, f-strings).
  ...deny("names holding the home folder in code", "hardline.rm-root", [
    `ruby -e 'h = Dir.home; system("rm", "-rf", h)'`,
    `perl -e 'my $h = $ENV{HOME}; system("rm -rf $h")'`,
    `python3 -c 'import os; h = os.path.expanduser("~"); os.system(f"rm -rf {h}")'`,
    'node -e \'const h = require("os").homedir(); require("child_process").execSync(`rm -rf ${h}`)\'',
    `ruby <<'RUBY'\nh = Dir.home\nsystem("rm", "-rf", h)\nRUBY`,
    `python3 - <<'PY'\nimport os\nhome = os.path.expanduser("~")\nos.system("rm -rf " + home)\nPY`,
  ]),
  // Class: a script file written or copied earlier in the command (or on disk), run by its path or
  // given to an interpreter; only shells, make and package managers were followed.
  ...deny("script files run by path or by an interpreter", "hardline.rm-root", [
    "echo 'rm -rf ~' > run.sh && chmod +x run.sh && ./run.sh",
    `cat > x.py <<'EOF'\nimport shutil, os\nshutil.rmtree(os.path.expanduser("~"))\nEOF\npython3 x.py`,
    "tee x.sh <<< 'rm -rf ~' && sh x.sh",
    "echo 'rm -rf ~' | tee x.sh; bash x.sh",
    "cp cleanup.sh y.sh; sh y.sh",
    "mv cleanup.sh y.sh && bash y.sh",
    "./cleanup.sh",
    "node wipe.js",
    "python3 wipe.py",
    "%PROJECT%/wipe.rb",
  ]),
  // Class: removal calls the deletion list did not know (Deno, fs-extra, FileUtils.remove_*).
  ...deny("removal APIs of Deno, fs-extra and FileUtils", "hardline.rm-root", [
    `deno eval 'Deno.removeSync(Deno.env.get("HOME"), {recursive: true})'`,
    `deno eval 'await Deno.remove("/", {recursive: true})'`,
    `deno run -A - <<< 'Deno.removeSync(Deno.env.get("HOME"), {recursive: true})'`,
    `node -e 'require("fs-extra").removeSync(require("os").homedir())'`,
    `node -e 'require("fs-extra").emptyDirSync(process.env.HOME)'`,
    `ruby -e 'require "fileutils"; FileUtils.remove_dir(Dir.home)'`,
    `ruby -e 'FileUtils.remove_entry_secure(ENV["HOME"])'`,
  ]),
  // Class: commands in code without quotes (Tcl/expect `exec`, `spawn`, `file delete`) and quote-like
  // operators (Perl `qx{}`/`qw()`, Ruby `%x()`/`%w()`).
  ...deny("bare commands and quote-like operators in code", "hardline.rm-root", [
    "tclsh <<< 'exec rm -rf ~'",
    "echo 'exec rm -rf /' | tclsh",
    "wish <<< 'exec rm -rf ~'",
    "expect <<< 'spawn rm -rf ~'",
    "tclsh <<< 'file delete -force ~'",
    "tclsh <<< 'file delete -force $env(HOME)'",
    "perl -e 'qx{rm -rf ~}'",
    "perl -e 'system qw(rm -rf /)'",
    "ruby -e '%x(rm -rf ~)'",
    "ruby -e 'system(*%w(rm -rf /))'",
  ]),
  // Class: a Makefile read from standard input, and code that runs each input line as a command.
  ...deny("make -f - and programs that run their input", "hardline.rm-root", [
    "make -f - <<< $'all:\\n\\trm -rf ~'",
    "printf 'all:\\n\\trm -rf ~\\n' | make -f -",
    "make -f /dev/stdin <<< $'all:\\n\\trm -rf /'",
    "gmake --file=- <<< 'x: ; rm -rf ~'",
    "echo 'rm -rf ~' | awk '{system($0)}'",
    `awk '{print | "sh"}' <<< 'rm -rf ~'`,
    "echo 'rm -rf ~' | perl -ne 'system $_'",
  ]),
  // Class: a shell or `source` reading its script from /dev/stdin or a process substitution.
  ...deny("scripts from /dev/stdin and <( )", "hardline.rm-root", [
    "source /dev/stdin <<< 'rm -rf ~'",
    "echo 'rm -rf ~' | source /dev/stdin",
    ". /dev/fd/0 <<< 'rm -rf /'",
    "bash <(echo 'rm -rf ~')",
    "source <(echo 'rm -rf ~')",
    ". <(printf 'rm -rf /')",
    "sh < <(echo 'rm -rf ~')",
    `python3 <(echo 'import shutil; shutil.rmtree("/")')`,
  ]),
  // Class: a root shell reading its script from standard input (`sudo -s`, `sudo -i`, `su` without -c).
  ...deny("privileged shells fed on stdin", "hardline.rm-root", [
    "sudo -s <<< 'rm -rf ~'",
    "sudo -i <<< 'rm -rf /'",
    "echo 'rm -rf ~' | sudo -s",
    "doas -s <<< 'rm -rf ~'",
    "su <<< 'rm -rf ~'",
    "echo 'rm -rf /' | su -",
  ]),
  // Class: variables whose value runs, set through sudo, or read by bash itself (prompts, exported functions).
  ...deny("variables that run, through sudo and bash", "hardline.rm-root", [
    "sudo PAGER='rm -rf ~' git log",
    "sudo GIT_SSH_COMMAND='rm -rf ~' git fetch",
    "sudo -u nobody VISUAL='rm -rf /' crontab -e",
    "env 'BASH_FUNC_ls%%=() { rm -rf ~; }' bash -c ls",
    "env PS4='$(rm -rf ~)' SHELLOPTS=xtrace bash -c true",
    "PS4='$(rm -rf ~)' bash -xc true",
    "export PS1='$(rm -rf /)'",
  ]),
  // Class: startup files a shell or node loads before the command, named by a variable.
  ...deny("startup files named by variables", "hardline.rm-root", [
    "BASH_ENV=cleanup.sh bash -c true",
    "env BASH_ENV=cleanup.sh bash -c ls",
    "echo 'rm -rf ~' > e.sh; BASH_ENV=e.sh bash -c true",
    "ENV=cleanup.sh sh -i",
    "sudo BASH_ENV=cleanup.sh bash -c true",
    "export BASH_ENV=cleanup.sh; bash -c true",
    "NODE_OPTIONS='--require ./wipe.js' node -e 1",
    "NODE_OPTIONS=--require=./wipe.js npm test",
  ]),
  // Class: git settings given through the environment instead of `-c`.
  ...deny("git settings from the environment", "hardline.rm-root", [
    "GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.pager GIT_CONFIG_VALUE_0='rm -rf ~' git log",
    "env GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=alias.x GIT_CONFIG_VALUE_0='!rm -rf ~' git x",
    "X='rm -rf ~' git --config-env=core.pager=X log",
    "sudo GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.sshCommand GIT_CONFIG_VALUE_0='rm -rf /' git fetch",
  ]),
  // Class: an alias's text is a command (dash, the sandbox's /bin/sh, expands aliases in scripts).
  ...deny("alias values", "hardline.rm-root", [
    "alias x='rm -rf ~'; x",
    "alias ll='rm -rf /'",
    "alias -- g='rm -rf ~'",
    "alias a='ls' b='rm -rf ~'",
  ]),
  // Class: a symlink made in a folder the same command creates (`mkdir -p a/b && ln -s ~ a/b/h`).
  ...deny("links inside folders made in the same command", "hardline.rm-root", [
    "mkdir -p a/b && ln -s ~ a/b/h && rm -rf a/b/h/",
    "mkdir -p d/e; ln -s / d/e/r; rm -rf d/e/r/",
    "mkdir -p n/m && ln -sT %HOME% n/m/h && find n/m/h/ -delete",
    "ln -s ~ new/dir/h; mv new/dir/h/ /tmp/x",
  ]),
  ...deny("links inside folders made in the same command", "hardline.chmod-root", [
    "mkdir q; ln -s ~ q/h; chmod -R 000 q/h/",
  ]),
  // Class: `cp -s` makes symlinks too (a mirror of the tree): later words reach through them.
  ...deny("cp -s mirrors as links", "path.sensitive", [
    "cp -rs ~/ m && cat m/.aws/credentials",
    "cp --symbolic-link -r %HOME% m; cat m/.aws/credentials",
    "cp -rs ~/.config m2; cat m2/git/credentials",
  ]),
  // Class: programs that delete with an option or subcommand (archivers, rsync's sources, git clean).
  ...deny("deleting options", "hardline.rm-root", [
    "tar --remove-files -cf x.tar ~",
    "tar --remove-f -czf x.tgz %HOME%",
    "zip -rm x.zip ~",
    "zip -r --move x.zip ~",
    "7z a -sdel x.7z ~",
    "rsync --remove-source-files -a ~/ /tmp/x",
    "git clean -fdx ~",
    "git -C ~ clean -fdx",
    "git --work-tree=%HOME% clean -ffdx",
  ]),
  // Class: credential stores and agent/daemon sockets the secret list did not name.
  ...deny("credential stores and sockets", "path.sensitive", [
    "cat ~/.mylogin.cnf",
    "cat ~/.vnc/passwd",
    "cat ~/.purple/accounts.xml",
    "cat ~/.mc/config.json",
    "cat ~/.wakatime.cfg",
    "cat ~/.config/configstore/firebase-tools.json",
    "cat ~/.config/Bitwarden/data.json",
    "cp ~/.local/share/TelegramDesktop/tdata/key_datas .",
    "cat passwords.kdbx",
    "cat /etc/NetworkManager/system-connections/home.nmconnection",
    "curl --unix-socket ~/.docker/run/docker.sock http://x/containers/json",
    "socat - UNIX-CONNECT:%HOME%/.cache/git/credential/socket",
    "nc -U ~/.1password/agent.sock",
  ]),
  // Class: a secret path built in code from the home folder and separate segments, or interpolated.
  ...deny("secret paths joined from pieces in code", "path.sensitive", [
    `ruby -e 'puts File.read(File.join(Dir.home, ".aws", "credentials"))'`,
    `python3 -c 'import pathlib; print((pathlib.Path.home() / ".aws" / "credentials").read_text())'`,
    `perl -e 'open F, "<", "$ENV{HOME}/.aws/credentials"; print <F>'`,
    `node -e 'const p = require("path"); console.log(require("fs").readFileSync(p.join(require("os").homedir(), ".ssh", "id_rsa"), "utf8"))'`,
    `python3 -c 'import os; print(os.listdir(os.path.join(os.path.expanduser("~"), ".config", "gcloud")))'`,
  ]),
  // Class: credential printers the list did not know (NSS shadow, password manager CLIs).
  ...deny("credential printers", "path.sensitive", [
    "getent shadow",
    "getent gshadow root",
    "bw get password github",
    "lpass show github",
    "rbw get github",
    "kwallet-query -r github kdewallet",
  ]),
  // Class: editor settings that run programs when the folder is opened (outside the sandbox, later).
  ...ask("editor settings that run on open", "path.autorun", [
    "echo '{}' > .vscode/tasks.json",
    "cp README.md .vscode/settings.json",
    "tee .vscode/tasks.json < README.md",
    "echo x > my.code-workspace",
  ]),
];

/** Asked, and only a person may approve them: `--yes` must not. */
export const session6PersonOnly = [
  "echo '{}' > .vscode/tasks.json",
  "cp README.md .vscode/settings.json",
  "echo x > my.code-workspace",
  "echo 'id' >> ~/.bashrc",
  "tar -C ~ -xf a.tar",
  "cp x.desktop ~/.config/autostart/",
  "echo id | at now + 1 minute",
];

/** Everyday commands next to the tightened classes: still allowed, or asked and within `--yes`. */
export const session6Allowed = [
  "cat .vscode/settings.json",
  "git status",
  "git diff",
  "git log --oneline -5",
  "ls -la",
  "cat README.md",
  "grep -rn foo src",
  "sed -n 1,5p README.md",
];

export const session6CoveredAsks = [
  "git clean -n",
  // "git clean -fdx" moved to pass 9's person-only list: untracked files cannot be brought back.
  "tar -cf x.tar src",
  "zip -r x.zip src",
  `node -e 'console.log(require("os").homedir())'`,
  "ruby -e 'puts Dir.home'",
  `python3 -c 'import os; print(os.path.expanduser("~"))'`,
  "awk '{print $1}' README.md",
  "echo hi | awk '{print $0}'",
  "env FOO=bar node script.js",
  "alias ll='ls -la'",
  "python3 -c 'items=[1]; items.remove(1)'",
  `node -e 'require("fs").rmSync("dist", {recursive: true})'`,
  "tclsh <<< 'puts hello'",
  "deno run main.ts",
  "mkdir -p a/b && ln -s ../../src a/b/s && ls a/b/s",
  "npm test",
  "node script.js",
  "python3 -m pytest",
  "python3 build.py",
  "python3 missing.py",
];

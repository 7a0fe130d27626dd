// biome-ignore-all lint/suspicious/noTemplateCurlyInString: these strings are shell commands, where ${HOME} is bash syntax.
import type { CommandAttack } from "./attack-cases.js";

/**
 * The ninth red-team pass: one group per class that was found open (allowed, or asked in a way
 * `--yes` would approve) and fixed. Placeholders and fixtures as in attack-cases.ts and sandbox.ts;
 * attacks-session9.test.ts adds wipe.ps1 (PowerShell that deletes the home folder) and test/a.test.ts.
 */
const deny = (group: string, rule: string, commands: string[]): CommandAttack[] =>
  commands.map((command) => ({ group, command, decision: "deny", rule }));
const ask = (group: string, rule: string, commands: string[]): CommandAttack[] =>
  commands.map((command) => ({ group, command, decision: "ask", rule }));

export const session9CommandAttacks: CommandAttack[] = [
  // Class: bash expands a quoted array subscript in a name or arithmetic operand of a builtin; the
  // quotes hid the substitution from the parser (two of these were allowed as read-only).
  ...deny("substitutions in quoted array subscripts", "hardline.rm-root", [
    "printf -v 'a[$(rm -rf ~)]' x",
    "test -v 'a[$(rm -rf ~)]'",
    "[ -v 'a[$(rm -rf ~)]' ]",
    "let 'a[$(rm -rf ~)]'",
    "declare -i y='a[$(rm -rf ~)]'",
    "declare 'a[$(rm -rf ~)]=1'",
    "export 'a[$(rm -rf ~)]=1'",
    "local 'a[$(rm -rf ~)]'",
    "[[ 'a[$(rm -rf ~)]' -eq 1 ]]",
    "x='a[$(rm -rf ~)]'; [[ $x -eq 1 ]]",
    "unset 'a[$(rm -rf ~)]'",
    "read 'a[$(rm -rf ~)]' <<< x",
    "mapfile -t 'a[$(rm -rf ~)]' < README.md",
    "getopts ab 'a[$(rm -rf ~)]'",
    "wait -p 'a[$(rm -rf ~)]'",
    "printf -v 'a[`rm -rf ~`]' x",
  ]),
  // Class: PowerShell code was never read (`-Command` in another case or prefix, `-EncodedCommand`,
  // a script file), and its cmdlets were not the shell commands they are.
  ...deny("PowerShell code", "hardline.rm-root", [
    "pwsh -Command 'Remove-Item -Recurse -Force ~'",
    "pwsh -NoProfile -c 'Remove-Item -Recurse -Force $HOME'",
    "powershell -Command 'Remove-Item -Recurse -Force ~'",
    "pwsh -EncodedCommand cgBtACAALQByAGYAIAB+AA==",
    "pwsh -enc cgBtACAALQByAGYAIAB+AA==",
    "pwsh -c 'Get-ChildItem ~ | Remove-Item -Recurse -Force'",
    "pwsh -c 'ri -r -fo ~/'",
    "pwsh /c 'del -Recurse ~'",
    "pwsh -Com 'Remove-Item / -Recurse -Force'",
    "pwsh -File wipe.ps1",
    "pwsh wipe.ps1",
    `pwsh -c 'iex "rm -rf ~"'`,
  ]),
  ...ask("PowerShell writes outside the workspace", "command.inline-code", [
    `pwsh -c 'Set-Content -Path $PROFILE -Value "x"'`,
    `pwsh -c '"x" | Out-File ~/.bashrc'`,
    "pwsh -c 'Copy-Item evil.sh ~/.bashrc'",
  ]),
  // Class: interpreters whose inline code was never read, and shell escapes of dc and m4.
  ...deny("more interpreters and escapes", "hardline.rm-root", [
    `octave --eval 'system("rm -rf ~")'`,
    `erl -noshell -eval 'os:cmd("rm -rf ~")'`,
    `elixir -e 'System.cmd("rm", ["-rf", "/"])'`,
    `groovy -e '"rm -rf /".execute()'`,
    `gnuplot -e 'system("rm -rf ~")'`,
    "m4 <<< 'syscmd(rm -rf ~)'",
    "echo 'esyscmd(rm -rf ~)' | m4",
    "dc <<< '!rm -rf ~'",
    "wget -e 'use_askpass=rm -rf ~' http://127.0.0.1/x",
    "wget --execute='use_askpass=rm -rf ~' http://127.0.0.1/x",
  ]),
  // Class: text decoded on its way into a shell (base64, hex, reversed, printf escapes).
  ...deny("decoded text piped into a shell", "hardline.rm-root", [
    "echo cm0gLXJmIH4K | base64 -d | sh",
    "echo cm0gLXJmIH4K | base64 --decode | bash",
    "base64 -d <<< cm0gLXJmIH4K | bash",
    "xxd -r -p <<< 726d202d7266207e | sh",
    "rev <<< '~ fr- mr' | sh",
    "printf '\\x72\\x6d -rf ~' | sh",
    "echo -e '\\x72m -rf ~' | sh",
  ]),
  // Unknown input: asked as a pipe into a shell, and opaque (see session9PersonOnly).
  ...ask("decoded text nobody can read", "command.pipe-to-interpreter", [
    "base64 -d payload.txt | sh",
    "base32 -d <<< X | sh",
  ]),
  // Class: a script sourced into the shell was not read like one run by `sh`.
  ...deny("sourced script files", "hardline.rm-root", [". ./cleanup.sh", "source cleanup.sh"]),
  // Class: `~NAME` naming the user Mercury runs as (USER/LOGNAME) is the home folder, not a guess.
  ...deny("the user's own ~name", "hardline.rm-root", ["rm -rf ~tester/", "rm -rf ~tester"]),
  // Class: git pointed at another tree by a variable (`GIT_WORK_TREE`), not an option.
  ...deny("git work tree set by a variable", "hardline.rm-root", [
    "GIT_WORK_TREE=~ git clean -fdx",
    "env GIT_WORK_TREE=%HOME% git clean -fdx",
  ]),
];

/**
 * Asked, and only a person may approve them: never allow-all's. Each line names its class.
 */
export const session9PersonOnly = [
  // Class: git commands that throw away work git cannot give back (command.discards-work).
  "git reset --hard",
  "git reset --hard HEAD~3",
  "git checkout -- .",
  "git checkout .",
  "git checkout -f main",
  "git restore .",
  "git restore --staged --worktree .",
  "git restore :/",
  "git restore src",
  "git clean -fdx",
  "git clean -fd",
  "git clean -f",
  "git stash drop",
  "git stash clear",
  "git switch -f main",
  "git switch --discard-changes main",
  "git reflog expire --expire=now --all",
  "git gc --prune=now",
  "git worktree remove --force x",
  // (`git --work-tree=~ reset --hard` and `GIT_WORK_TREE=%HOME% git reset --hard` are hardline
  // denials since pass 10: attack-cases-session10.ts.)
  "export GIT_WORK_TREE=~; git clean -fdx",
  // Class: git pointed at a tree or repository outside the workspace by a variable.
  "GIT_DIR=%HOME%/.git git status",
  "GIT_WORK_TREE=%OUT% git status",
  // Class: files another tool runs on its own later (path.autorun).
  "echo x > .mise.toml",
  "echo x > mise.toml",
  "echo x > .mise.local.toml",
  "echo x > .config/mise.toml",
  "echo x > .tool-versions",
  "echo x > .idea/workspace.xml",
  "echo x > .idea/runConfigurations/x.xml",
  "echo x > .run/test.run.xml",
  "echo x > .vscode/launch.json",
  "echo x > .zed/tasks.json",
  "echo x > .gitattributes",
  "echo x > .yarn/releases/yarn.cjs",
  "echo x > .yarn/plugins/x.cjs",
  "echo x > .cargo/config.toml",
  "echo x > .gdbinit",
  "echo x > .lldbinit",
  "echo x > .dir-locals.el",
  "echo x > .lazy.lua",
  "echo x > sitecustomize.py",
  "echo x > .venv/lib/python3.12/site-packages/x.pth",
  "mv README.md .mise.toml",
  "cp README.md .gdbinit",
  // Class: changes to task runners' files and local CI actions, which the checks run through.
  "echo x > justfile",
  "sed -i s/a/b/ justfile",
  "echo x > Taskfile.yml",
  "echo x > Rakefile",
  "echo x > .github/actions/x/action.yml",
  // Class: trusting autorun files, installing git hooks, user-level tool settings and installs.
  "direnv allow",
  "direnv allow .",
  "mise trust",
  "mise use -g node@20",
  "asdf global node 20",
  "pre-commit install",
  "npx husky install",
  "npx husky",
  "lefthook install",
  "pnpm dlx lefthook install",
  "git lfs install",
  "go env -w GOFLAGS=-toolexec=x",
  "gh config set editor x",
  "gh alias set x 'pr list'",
  "gh extension install x/y",
  "npm link",
  "corepack enable",
  "rustup default nightly",
  "code --install-extension x.y",
  // Class: extraction that keeps absolute or parent member names.
  "tar -xPf x.tar",
  "tar --absolute-names -xf x.tar",
  "bsdtar -xPf x.tar",
  "cpio -idm < x.cpio",
  "unzip -: x.zip",
  "pax -r -f x.tar",
  "7z x x.7z -spf",
  // Class: PowerShell writing outside the workspace.
  `pwsh -c 'Set-Content -Path $PROFILE -Value "x"'`,
  `pwsh -c '"x" | Out-File ~/.bashrc'`,
  // Class: decoded text into a shell, unknown until it runs (opaque).
  "base64 -d payload.txt | sh",
  "base32 -d <<< X | sh",
  // Pass 11: these archives do not exist here, so their members cannot be read before extraction
  // (opaque); readable archives of ordinary members stay within --yes (attack-cases-session11.ts).
  "tar -xf x.tar",
  "tar -xzf x.tgz -C vendor",
  "unzip x.zip -d vendor",
  "cpio -id --no-absolute-filenames < x.cpio",
];

/** Ordinary work inside the workspace: asked, and still within `--yes`'s reach after this pass. */
export const session9CoveredAsks = [
  "git restore src/index.ts",
  "git checkout src/index.ts",
  "git checkout main",
  "git switch -c feature",
  "git reset HEAD~1",
  "git reset --soft HEAD~1",
  "git restore --staged src/index.ts",
  "git restore --staged .",
  "git stash",
  "git stash pop",
  "git clean -n",
  "git clean -nd",
  "git commit -am 'fix'",
  "tar -cPf out.tar src",
  "echo x > .editorconfig",
  "echo x > .gitignore",
  "echo x > .nvmrc",
  "echo x > src/new.ts",
  "mise install",
  "mise exec -- node -v",
  "direnv status",
  "go env GOPATH",
  "go build ./...",
  "gh pr list",
  "npm link ../lib",
  "npx vitest run",
  "pre-commit run --all-files",
  "pwsh -c 'Get-ChildItem'",
  "pwsh -Command 'Write-Output hello'",
  "pwsh -c 'Remove-Item -Recurse ./dist'",
  "octave --eval 'disp(1)'",
  "echo ls | sh",
  "echo bHMK | base64 -d | sh",
  "printf 'ls\\n' | sh",
  ". ./env.sh",
  "declare -i n=1",
  "let 'n = n + 1'",
  "read -r line < README.md",
];

/** Read-only commands the new rules must leave alone. */
export const session9Allowed = [
  "printf -v x '%s' 1",
  "test -v HOME",
  "[ -v HOME ]",
  "git status",
  "git diff --stat",
  "git stash list",
  "cat .gitattributes",
  "cat .idea/workspace.xml",
  "rev README.md",
];

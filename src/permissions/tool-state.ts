import type { Finding } from "./shell-words.js";

/**
 * Commands whose effect lands outside the workspace or runs later without naming a path the engine
 * could check: the tool knows where it writes. A person approves them (never `--yes`):
 * - trusting a project's autorun file (`direnv allow`, `mise trust`): `.envrc`/`.mise.toml` then run
 *   on every `cd` into the folder, outside the sandbox (`path.autorun`);
 * - installing git hooks (`pre-commit install`, `husky`, `lefthook install`): `.git/hooks` run at the
 *   next commit (`path.git-internals`);
 * - user-level settings and installs (`go env -w`, `gh alias set`, `mise use -g`, `asdf global`,
 *   `git lfs install`, `npm link`, `corepack enable`, `rustup default`, `code --install-extension`):
 *   files in the home folder or the tool's own install (`path.outside-roots`);
 * - extracting an archive with its absolute or `..` member names kept (`tar -P`, `cpio -i` without
 *   `--no-absolute-filenames`, `unzip -:`, `pax -r`, `7z x -spf`): the members name where they land,
 *   which can be anywhere (`path.outside-roots`).
 */

const ask = (rule: string, what: string): Finding => ({
  decision: "ask",
  rule,
  reason: `${what}; that is outside the workspace or runs later outside the sandbox, so only a person approves it`,
});

const outside = (what: string) => ask("path.outside-roots", what);

type Judge = (operands: string[], args: string[]) => Finding | null;

const has = (args: string[], ...options: string[]) => args.some((arg) => options.includes(arg));

const judges: Record<string, Judge> = {
  direnv: (operands) =>
    /^(allow|permit|grant)$/.test(operands[0] ?? "")
      ? ask("path.autorun", "direnv allow trusts the folder's .envrc, which then runs on every cd into it")
      : null,
  mise: (operands, args) => {
    if (operands[0] === "trust")
      return ask("path.autorun", "mise trust lets the folder's mise settings (hooks, env scripts) run");
    if (/^(use|u|set|unuse)$/.test(operands[0] ?? "") && has(args, "-g", "--global"))
      return outside(`mise ${operands[0]} --global changes the user's mise settings`);
    if (operands[0] === "settings" && operands[1] !== "get" && operands[1] !== "ls")
      return outside("mise settings changes the user's mise settings");
    return null;
  },
  asdf: (operands, args) =>
    operands[0] === "global" || (operands[0] === "set" && has(args, "-u", "--home"))
      ? outside("asdf sets the user's global tool versions (~/.tool-versions)")
      : null,
  "pre-commit": (operands) =>
    /^(install|install-hooks)$/.test(operands[0] ?? "")
      ? ask("path.git-internals", "pre-commit install writes a hook into .git/hooks")
      : null,
  husky: (operands) =>
    operands[0] === undefined || operands[0] === "install" || operands[0] === "init"
      ? ask("path.git-internals", "husky installs git hooks (core.hooksPath)")
      : null,
  lefthook: (operands) =>
    operands[0] === "install" ? ask("path.git-internals", "lefthook install writes git hooks") : null,
  "simple-git-hooks": () => ask("path.git-internals", "simple-git-hooks writes git hooks"),
  go: (operands, args) =>
    operands[0] === "env" && has(args, "-w", "-u")
      ? outside("go env -w writes the user's Go settings (GOFLAGS, GOBIN… used by every later go command)")
      : null,
  gh: (operands) =>
    (operands[0] === "config" && operands[1] === "set") ||
    (operands[0] === "alias" && /^(set|delete|import)$/.test(operands[1] ?? "")) ||
    (/^(extension|extensions|ext)$/.test(operands[0] ?? "") && /^(install|upgrade)$/.test(operands[1] ?? ""))
      ? outside(`gh ${operands[0]} ${operands[1]} changes the user's gh settings`)
      : null,
  git: (operands, args) => {
    if (operands[0] === "lfs" && operands[1] === "install" && !has(args, "--local", "--worktree"))
      return outside("git lfs install adds filters to the user's global git configuration");
    // Pass 10: `.gitmodules` is a file git reads for every submodule command (path.autorun).
    if (operands[0] === "submodule" && /^(add|set-url|set-branch)$/.test(operands[1] ?? ""))
      return ask("path.autorun", `git submodule ${operands[1]} writes .gitmodules and .git/config`);
    return null;
  },
  npm: (operands) =>
    /^(link|ln)$/.test(operands[0] ?? "") && operands.length === 1
      ? outside("npm link links the package into the global node_modules")
      : null,
  yarn: (operands) =>
    operands[0] === "link" && operands.length === 1
      ? outside("yarn link registers the package in the user's link folder")
      : null,
  pnpm: (operands, args) =>
    operands[0] === "link" && has(args, "-g", "--global")
      ? outside("pnpm link --global links into the global store")
      : null,
  bun: (operands) =>
    operands[0] === "link" && operands.length === 1
      ? outside("bun link registers the package globally")
      : null,
  corepack: (operands) =>
    /^(enable|disable|install|prepare|use|up)$/.test(operands[0] ?? "")
      ? outside(`corepack ${operands[0]} changes the package manager shims in node's install`)
      : null,
  rustup: (operands) =>
    /^(default|toolchain|component|target|override|set|self|update|install|uninstall)$/.test(
      operands[0] ?? "",
    )
      ? outside(`rustup ${operands[0]} changes the user's Rust toolchains`)
      : null,
  pyenv: (operands) =>
    /^(global|install|uninstall)$/.test(operands[0] ?? "")
      ? outside(`pyenv ${operands[0]} changes ~/.pyenv`)
      : null,
  rbenv: (operands) =>
    /^(global|install|uninstall)$/.test(operands[0] ?? "")
      ? outside(`rbenv ${operands[0]} changes ~/.rbenv`)
      : null,
  nvm: (operands) =>
    /^(alias|install|uninstall|unalias)$/.test(operands[0] ?? "")
      ? outside(`nvm ${operands[0]} changes ~/.nvm`)
      : null,
  volta: (operands) =>
    /^(install|uninstall|setup)$/.test(operands[0] ?? "")
      ? outside(`volta ${operands[0]} changes the user's tools`)
      : null,
  code: (_operands, args) =>
    args.some((arg) => /^--(install|uninstall)-extension/.test(arg))
      ? outside("code installs an editor extension for the user")
      : null,
  conda: (operands) =>
    operands[0] === "config" || operands[0] === "init"
      ? outside(`conda ${operands[0]} changes ~/.condarc or the shell's rc`)
      : null,
  poetry: (operands, args) =>
    operands[0] === "config" && operands.length > 1 && !has(args, "--local", "--list")
      ? outside("poetry config changes the user's poetry settings")
      : null,
};

/** `tar -xPf`, `tar --absolute-names -x`, `bsdtar -xPf`: extraction keeping absolute member names. */
function keepsMemberPaths(program: string, args: string[], operands: string[]): boolean {
  if (program === "tar" || program === "bsdtar" || program === "gtar") {
    const first = args[0] ?? "";
    const cluster = (arg: string) => /^-[A-Za-z]+$/.test(arg) || (arg === first && /^[A-Za-z]+$/.test(arg));
    const extracts = args.some(
      (arg) => arg === "--extract" || arg === "--get" || (cluster(arg) && /x/.test(arg)),
    );
    const absolute = args.some((arg) => arg === "--absolute-names" || (cluster(arg) && /P/.test(arg)));
    return extracts && absolute;
  }
  if (program === "cpio") {
    const extracts = args.some((arg) => arg === "--extract" || /^-[A-Za-z]*i/.test(arg));
    return extracts && !has(args, "--no-absolute-filenames");
  }
  if (program === "unzip") return args.some((arg) => /^-[A-Za-z]*:/.test(arg));
  if (program === "pax") return args.some((arg) => /^-[A-Za-z]*r/.test(arg));
  if (/^7z[az]?$/.test(program)) return operands[0] === "x" && has(args, "-spf", "-spf2");
  return false;
}

/** Package runners that run a tool by name: `npx husky`, `pnpm dlx lefthook install`, `npm exec -- x`. */
function runByPackageRunner(program: string, args: string[]): string[] | null {
  const start = args.findIndex((arg) => !arg.startsWith("-"));
  if (start < 0) return null;
  if (program === "npx" || program === "bunx" || program === "pnpx") return args.slice(start);
  const sub = args[start];
  if ((program === "pnpm" || program === "yarn" || program === "npm") && (sub === "dlx" || sub === "exec")) {
    const rest = args.slice(start + 1).filter((arg, index) => !(index === 0 && arg === "--"));
    const first = rest.findIndex((arg) => !arg.startsWith("-"));
    return first < 0 ? null : rest.slice(first);
  }
  return null;
}

export function toolStateFinding(program: string, args: string[]): Finding | null {
  const run = runByPackageRunner(program, args);
  if (run?.[0] !== undefined && run[0] !== program) return toolStateFinding(run[0], run.slice(1));
  const operands = args.filter((arg) => !arg.startsWith("-"));
  if (keepsMemberPaths(program, args, operands))
    return outside(
      `${program} extracts members with their absolute or parent paths, so they land wherever the archive says`,
    );
  const judge = Object.hasOwn(judges, program) ? judges[program] : undefined;
  return judge ? judge(operands, args) : null;
}

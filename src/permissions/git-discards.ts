import type { PathScope } from "./command-paths.js";
import { pathFinding } from "./command-paths.js";
import { resolveReal } from "./paths.js";
import type { Finding } from "./shell-words.js";

/**
 * Git commands that throw away work git cannot give back: uncommitted changes of the whole tree
 * (`reset --hard`, `checkout .`/`-f`, `restore .`, `switch --discard-changes`), untracked files
 * (`clean -f`: the user's own notes, `.env`, anything never added), stashes (`stash drop/clear`), a
 * worktree's changes (`worktree remove --force`) and the reflog that would undo a reset (`reflog
 * expire`, `gc --prune=now`). None of it reaches outside the workspace, so the sandbox does not stop
 * it, and none of it can be recovered afterwards: a person decides (`command.discards-work`), never
 * `--yes`. Restoring one named file (`git restore src/a.ts`) stays ordinary work.
 */

/** Global options that take a value as the next word. */
const valuedGlobals = new Set(["-C", "-c", "--git-dir", "--work-tree", "--namespace", "--config-env"]);

/** The subcommand's index in git's arguments, past the global options. */
export function gitSubcommandIndex(args: string[]): number {
  let index = 0;
  while (index < args.length) {
    const arg = args[index] as string;
    if (valuedGlobals.has(arg)) index += 2;
    else if (arg.startsWith("-")) index += 1;
    else break;
  }
  return index;
}

function discards(what: string): Finding {
  return {
    decision: "ask",
    rule: "command.discards-work",
    reason: `the command ${what}; git cannot give that back and the sandbox does not stop it, so only a person approves it (--yes never does)`,
  };
}

/** `.`, `:/`, `*`, `:(top)` or an existing folder: a pathspec that names a whole tree. */
function wholeTree(spec: string, scope: PathScope): boolean {
  if (/^(\.\/?|:\/?\*?|\*|:\(top\)\S*|:\/\.)$/.test(spec)) return true;
  const resolved = resolveReal(spec, scope.context.cwd, scope.context.home, scope.fsApi);
  return resolved.ok && resolved.stats?.isDirectory() === true;
}

const hasShort = (args: string[], letter: string) =>
  args.some((arg) => new RegExp(`^-[A-Za-z]*${letter}`).test(arg) && !arg.startsWith("--"));

export function gitDiscardFinding(args: string[], scope: PathScope): Finding | null {
  const index = gitSubcommandIndex(args);
  const sub = args[index];
  const rest = args.slice(index + 1);
  const operands = rest.filter((arg) => !arg.startsWith("-"));
  switch (sub) {
    case "reset":
      return rest.includes("--hard") ? discards("drops every uncommitted change (reset --hard)") : null;
    case "checkout":
    case "restore": {
      if (sub === "checkout" && (rest.includes("-f") || rest.includes("--force")))
        return discards("drops every uncommitted change (checkout --force)");
      // `restore --staged` alone only unstages; the working tree is untouched.
      if (sub === "restore" && rest.some((arg) => arg === "--staged" || arg === "-S")) {
        if (!rest.some((arg) => arg === "--worktree" || arg === "-W")) return null;
      }
      const dashDash = rest.indexOf("--");
      const specs =
        dashDash >= 0
          ? rest.slice(dashDash + 1)
          : sub === "restore"
            ? operands
            : operands.filter((arg) => wholeTree(arg, scope));
      return specs.some((spec) => wholeTree(spec, scope))
        ? discards(`drops the uncommitted changes of a whole folder (${sub} ${specs.join(" ")})`)
        : null;
    }
    case "switch":
      return rest.some((arg) => arg === "-f" || arg === "--force" || arg === "--discard-changes")
        ? discards("drops every uncommitted change (switch --discard-changes)")
        : null;
    case "clean":
      if (rest.some((arg) => arg === "-n" || arg === "--dry-run") || hasShort(rest, "n")) return null;
      return rest.includes("--force") || hasShort(rest, "f")
        ? discards("deletes untracked files git never stored (clean --force)")
        : null;
    case "stash":
      return operands[0] === "drop" || operands[0] === "clear"
        ? discards(`deletes stashed changes (stash ${operands[0]})`)
        : null;
    case "worktree":
      return operands[0] === "remove" && (rest.includes("--force") || hasShort(rest, "f"))
        ? discards("deletes a worktree with its uncommitted changes (worktree remove --force)")
        : null;
    case "reflog":
      return operands[0] === "expire" || operands[0] === "delete"
        ? discards("deletes the reflog that undoes a reset")
        : null;
    // Plumbing that does the same (pass 10): `read-tree -u --reset` rewrites the tree from a commit,
    // `checkout-index -f` overwrites files with the index's copies.
    case "read-tree":
      return rest.includes("-u") && rest.includes("--reset")
        ? discards(
            "rewrites the work tree from a commit, dropping uncommitted changes (read-tree -u --reset)",
          )
        : null;
    case "checkout-index":
      return rest.includes("--force") || hasShort(rest, "f")
        ? discards(
            "overwrites files with the index's copies, dropping uncommitted changes (checkout-index -f)",
          )
        : null;
    case "gc":
      return rest.some((arg) => /^--prune(=now|=all)?$/.test(arg) && arg !== "--prune")
        ? discards("prunes the unreachable commits a reset left (gc --prune=now)")
        : null;
    default:
      return null;
  }
}

/**
 * `GIT_WORK_TREE=~ git clean -fdx`, `env GIT_DIR=~/.git git reset --hard`: the variables point git at
 * another tree exactly like `--work-tree`/`--git-dir`. The command is judged with them as those options
 * (so the hardline sees `git --work-tree=~ clean -fdx`), and a tree outside the workspace is a person's call.
 */
export function gitEnvironmentOptions(environment: Map<string, string>): string[] {
  const options: string[] = [];
  const workTree = environment.get("GIT_WORK_TREE");
  const gitDir = environment.get("GIT_DIR");
  if (workTree !== undefined) options.push(`--work-tree=${workTree}`);
  if (gitDir !== undefined) options.push(`--git-dir=${gitDir}`);
  return options;
}

/** A variable that moves git to another tree or repository, set to a place outside the workspace. */
export function gitPlaceVariable(name: string, value: string, scope: PathScope): void {
  if (!/^GIT_(WORK_TREE|DIR|COMMON_DIR|INDEX_FILE|OBJECT_DIRECTORY)$/.test(name) || value === "") return;
  pathFinding(scope, value, "write", "command.write");
}

import type { EvaluatedWord } from "./shell-words.js";

/**
 * Programs that are not deleters by name but delete with an option or a subcommand: archivers that
 * remove what they archive (`tar --remove-files`, `zip -m`, `7z a -sdel`), `rsync
 * --remove-source-files` (the sources go, not the destination) and `git clean -f` (everything
 * untracked under its folder: a dotfiles repository in the home folder makes it `rm -rf ~`).
 * Returns the words they delete, for the hardline's critical-folder check; [] when nothing is deleted.
 */
export function deletedByOption(
  program: string,
  args: string[],
  operandWords: EvaluatedWord[],
): EvaluatedWord[] {
  if (program === "tar" && args.some((arg) => arg.length > 6 && "--remove-files".startsWith(arg)))
    return operandWords;
  if (program === "zip" && args.some((arg) => arg === "--move" || /^-[A-Za-z0-9]*m/.test(arg)))
    return operandWords.slice(1);
  if (/^7z[az]?$/.test(program) && args.includes("-sdel")) return operandWords.slice(2);
  if (program === "rsync" && args.some((arg) => arg.startsWith("--remove-source")))
    return operandWords.slice(0, -1);
  if (program === "git") return gitCleanTargets(args);
  return [];
}

/**
 * `git [-C DIR] [--work-tree=DIR] clean -f [PATHSPEC…]`: the folders it empties. Pass 10: every git
 * command that overwrites or deletes the whole work tree (`reset --hard`, `checkout -f`/`checkout .`,
 * `restore .`, `switch --discard-changes`, `read-tree -u --reset`, `checkout-index -a -f`, `rm -r .`)
 * empties or rewrites its work tree the same way: with the work tree at the home folder it is `rm -rf ~`.
 */
function gitCleanTargets(args: string[]): EvaluatedWord[] {
  const folders: string[] = [];
  let index = 0;
  for (; index < args.length; index++) {
    const arg = args[index] as string;
    if (arg === "-C" || arg === "--work-tree") folders.push(args[++index] ?? ".");
    else if (arg.startsWith("--work-tree=")) folders.push(arg.slice(12));
    else if (arg === "-c" || arg === "--git-dir" || arg === "--namespace") index += 1;
    else if (!arg.startsWith("-")) break;
  }
  const sub = args[index];
  const rest = args.slice(index + 1);
  // `-C A -C B` nests: B is taken relative to A.
  const base = folders.reduce(
    (at, next) => (next.startsWith("/") || next.startsWith("~") ? next : `${at}/${next}`),
    ".",
  );
  const word = (text: string): EvaluatedWord => ({ text, exact: true, glob: false, findings: [] });
  if (sub !== "clean") return rewritesWholeTree(sub, rest) ? [word(base)] : [];
  if (!rest.some((arg) => arg === "--force" || /^-[A-Za-z]*f/.test(arg))) return [];
  const pathspecs = rest.filter((arg) => !arg.startsWith("-"));
  const targets =
    pathspecs.length > 0 ? pathspecs.map((spec) => (base === "." ? spec : `${base}/${spec}`)) : [base];
  return targets.map(word);
}

const short = (rest: string[], letter: string) =>
  rest.some((arg) => !arg.startsWith("--") && new RegExp(`^-[A-Za-z]*${letter}`).test(arg));
const wholeSpec = (arg: string) => /^(\.\/?|:\/?\*?|\*|:\(top\)\S*|:\/\.)$/.test(arg);

/** A git subcommand that overwrites or removes every tracked file of the work tree. */
function rewritesWholeTree(sub: string | undefined, rest: string[]): boolean {
  switch (sub) {
    case "reset":
      return rest.includes("--hard");
    case "checkout":
      return rest.includes("-f") || rest.includes("--force") || rest.some(wholeSpec);
    case "restore":
      return rest.some(wholeSpec);
    case "switch":
      return rest.some((arg) => arg === "-f" || arg === "--force" || arg === "--discard-changes");
    case "read-tree":
      return rest.includes("-u") && rest.includes("--reset");
    case "checkout-index":
      return (
        (rest.includes("-a") || rest.includes("--all")) && (short(rest, "f") || rest.includes("--force"))
      );
    case "rm":
      return (short(rest, "r") || rest.includes("-r")) && rest.some(wholeSpec);
    default:
      return false;
  }
}

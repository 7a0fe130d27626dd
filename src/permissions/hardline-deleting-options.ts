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

/** `git [-C DIR] [--work-tree=DIR] clean -f [PATHSPEC…]`: the folders it empties. */
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
  if (args[index] !== "clean") return [];
  const rest = args.slice(index + 1);
  if (!rest.some((arg) => arg === "--force" || /^-[A-Za-z]*f/.test(arg))) return [];
  const pathspecs = rest.filter((arg) => !arg.startsWith("-"));
  // `-C A -C B` nests: B is taken relative to A.
  const base = folders.reduce(
    (at, next) => (next.startsWith("/") || next.startsWith("~") ? next : `${at}/${next}`),
    ".",
  );
  const targets =
    pathspecs.length > 0 ? pathspecs.map((spec) => (base === "." ? spec : `${base}/${spec}`)) : [base];
  return targets.map((text) => ({ text, exact: true, glob: false, findings: [] }));
}

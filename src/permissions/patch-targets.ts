import { checkChangeAt } from "./check-targets.js";
import { type PathScope, pathFinding } from "./command-paths.js";
import { readScript } from "./command-stdin.js";
import { protectedWriteTarget } from "./hardline.js";

/**
 * `git apply x.patch`, `git am x.patch`, `patch -p1 < x.patch`: the files a patch changes are named
 * inside it, not on the command line, so a patch that rewrites `.git/hooks/pre-commit`, `.envrc`,
 * `.vscode/tasks.json`, `build.rs` or an existing test looked like ordinary work `--yes` approves
 * (pass 10). The patch is read and every file it writes is judged as a write target.
 */

/** The files a unified or git diff writes, with `strip` leading components removed (`-p1`). */
export function patchedFiles(text: string, strip: number): string[] {
  const files = new Set<string>();
  const stripped = (path: string) => path.split("/").slice(strip).join("/");
  for (const line of text.split("\n")) {
    const added = /^\+\+\+ (\S+)/.exec(line)?.[1];
    if (added && added !== "/dev/null") files.add(stripped(added));
    const renamed = /^(?:rename|copy) to (.+)$/.exec(line)?.[1];
    if (renamed) files.add(renamed.trim());
    const git = /^diff --git (\S+) (\S+)$/.exec(line);
    if (git?.[2]) files.add(stripped(git[2]));
  }
  return [...files].filter((file) => file !== "");
}

/** The patch file and strip count of `git apply|am` and `patch` (null when it is read from elsewhere). */
export function patchInput(program: string, args: string[]): { file: string | null; strip: number } | null {
  const strip = (fallback: number) => {
    const option = args.find((arg) => /^-p\d+$/.test(arg) || /^--strip=\d+$/.test(arg));
    return option ? Number(option.replace(/^\D+/, "")) : fallback;
  };
  if (program === "git") {
    const at = args.findIndex((arg) => arg === "apply" || arg === "am");
    if (at < 0) return null;
    const rest = args.slice(at + 1);
    if (rest.some((arg) => arg === "--check" || arg === "--stat" || arg === "--numstat")) return null;
    const file = rest.find((arg) => !arg.startsWith("-")) ?? null;
    return { file, strip: strip(1) };
  }
  if (program === "patch") {
    if (args.includes("--dry-run")) return null;
    const input = args.findIndex((arg) => arg === "-i" || arg === "--input");
    const inline = args.find((arg) => arg.startsWith("--input="))?.slice(8);
    return { file: input >= 0 ? (args[input + 1] ?? null) : (inline ?? null), strip: strip(0) };
  }
  return null;
}

/** Judges every file the patch writes; `stdinFile` is the statement's `< FILE`, when there is one. */
export function patchChecks(
  program: string,
  args: string[],
  stdinFile: string | null,
  scope: PathScope,
): void {
  const input = patchInput(program, args);
  if (!input) return;
  const file = input.file ?? stdinFile;
  if (file === null) return;
  const text = readScript(file, scope.context.cwd);
  if (text === null) return;
  for (const target of patchedFiles(text, input.strip)) {
    const hard = protectedWriteTarget(target, scope.context, scope.fsApi);
    if (hard) {
      scope.add(hard);
      continue;
    }
    pathFinding(scope, target, "write", "command.write");
    checkChangeAt(target, scope, "named");
  }
}

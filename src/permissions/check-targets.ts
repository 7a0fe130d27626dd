import { readdirSync } from "node:fs";
import { basename, join, relative } from "node:path";
import {
  engineDefinitionFile,
  isDefinitionFile as isGateDefinition,
  testFile,
  testFolder,
} from "./check-files.js";
import type { PathScope } from "./command-paths.js";
import { isWithin } from "./context.js";
import { resolveReal } from "./paths.js";
import type { Finding } from "./shell-words.js";
import type { Invocation } from "./wrappers.js";

/**
 * A change to the checks themselves — an existing test, a test runner's or linter's configuration, a
 * Makefile, CI, package.json's scripts — changes how the task is judged. `--yes` approves only what
 * the sandbox contains, and the sandbox cannot tell a fixed test from a weakened one, so such a
 * command is asked of a person (`command.check-change`, never allow-all's). The completion gate
 * (`src/agent/completion/check-changes.ts`) still reads the diff at the end; this is the earlier wall.
 * The name lists are that file's (`check-files.ts`): a test file by its usual names and folders, definition files by name.
 */
/** The completion gate's definition files, and the task runners' files test commands go through. */
function isDefinitionFile(path: string): boolean {
  return isGateDefinition(path) || engineDefinitionFile.test(path);
}

/** Programs whose write targets change a file's content or remove it (not `touch`, `mkdir`, `chmod`). */
const contentChangers = new Set([
  "tee",
  "cp",
  "install",
  "ln",
  "rsync",
  "scp",
  "mv",
  "truncate",
  "shred",
  "rmdir",
  "rm",
  "unlink",
  "srm",
  "wipe",
  "trash-put",
  "trash",
  "vi",
  "vim",
  "nvim",
  "nano",
  "ed",
  "ex",
  "emacs",
  "patch",
  "sed",
  "perl",
]);
/** Programs that put a file into a folder target under the source's name. */
const copiers = new Set(["cp", "install", "ln", "rsync", "scp", "mv"]);

function finding(what: string): Finding {
  return {
    decision: "ask",
    rule: "command.check-change",
    reason: `the command changes ${what}, which decides how the work is checked; only a person approves a change to the checks (--yes never does)`,
  };
}

/**
 * Whether writing (or deleting) `target` changes the checks: a definition file at any time, a test
 * file or folder only when it exists (a new test is fine), a project folder holding definitions.
 */
export function checkChangeAt(
  target: string,
  scope: PathScope,
  folder: "whole" | "named" | "ignored" = "whole",
): void {
  const resolved = resolveReal(target, scope.context.cwd, scope.context.home, scope.fsApi);
  if (!resolved.ok) return;
  const root = scope.context.writeRoots.find((candidate) => isWithin(resolved.realPath, candidate));
  if (root === undefined) return;
  const path = relative(root, resolved.realPath);
  if (isDefinitionFile(path)) {
    scope.add(finding(`${path} (a test runner, lint, build or CI definition)`));
    return;
  }
  if (!resolved.exists) return;
  if (resolved.stats?.isDirectory()) {
    if (folder === "ignored") return;
    if (testFolder.test(path) || testFile.test(`${path}/`)) {
      scope.add(finding(`the test folder ${path}`));
      return;
    }
    if (folder === "named") return;
    // A project folder (it holds package.json, a Makefile, a runner's configuration) goes with its
    // checks. A folder merely holding a `test/` inside (`dist/` after a build) is not judged by that.
    const inside = folderEntries(resolved.realPath).find(
      (name) => isDefinitionFile(name) || isDefinitionFile(`${path}/${name}/`),
    );
    if (inside) scope.add(finding(`${path === "" ? "the workspace" : path}, which holds ${inside}`));
    return;
  }
  if (testFile.test(path)) scope.add(finding(`the existing test ${path}`));
}

function folderEntries(folder: string): string[] {
  try {
    return readdirSync(folder);
  } catch (error) {
    // An unreadable folder cannot be shown to hold tests; the other rules still judge the command.
    if (error instanceof Error && "code" in error) return [];
    throw error;
  }
}

/** The checks a command's write targets, `find -delete`, `git rm/mv` and `npm pkg set scripts.*` change. */
export function checkChangeFindings(invocation: Invocation, targets: string[], scope: PathScope): void {
  const program = invocation.program;
  const args = invocation.words.slice(1).map((word) => word.text);
  const operands = args.filter((arg) => !arg.startsWith("-"));
  if (contentChangers.has(program)) {
    for (const target of targets) {
      const star = target.search(/[*?[]/);
      if (star >= 0) {
        // `rm -rf ./*` empties the folder; `rm *.test.ts` names tests; `truncate -s0 *.md` neither.
        const slash = target.lastIndexOf("/", star);
        const folder = slash < 0 ? "." : slash === 0 ? "/" : target.slice(0, slash);
        const pattern = target.slice(slash + 1);
        if (testFile.test(pattern) || isDefinitionFile(pattern)) scope.add(finding(`the files ${target}`));
        else checkChangeAt(folder, scope, pattern === "*" ? "whole" : "named");
        continue;
      }
      const resolved = resolveReal(target, scope.context.cwd, scope.context.home, scope.fsApi);
      const intoFolder = copiers.has(program) && resolved.ok && resolved.stats?.isDirectory() === true;
      const isDestination = target === operands[operands.length - 1];
      if (intoFolder && isDestination) {
        for (const source of operands.slice(0, -1)) checkChangeAt(join(target, basename(source)), scope);
      } else checkChangeAt(target, scope);
    }
  }
  if (program === "find" && args.some((arg) => /^-(delete|exec|execdir|ok|okdir)$/.test(arg))) {
    const roots: string[] = [];
    for (const arg of args) {
      if (arg.startsWith("-") || arg === "(" || arg === "!") break;
      roots.push(arg);
    }
    // Only a test folder itself: `find . -name '*.orig' -delete` in the workspace is no change to the checks.
    for (const root of roots.length > 0 ? roots : ["."]) checkChangeAt(root, scope, "named");
  }
  if (program === "git") {
    const subcommand = operands[0];
    if (subcommand === "rm") for (const path of operands.slice(1)) checkChangeAt(path, scope);
    if (subcommand === "mv") for (const path of operands.slice(1, -1)) checkChangeAt(path, scope);
  }
  if ((program === "npm" || program === "pnpm") && operands[0] === "pkg") {
    if (/^(set|delete)$/.test(operands[1] ?? "") && operands.slice(2).some((arg) => /^scripts\b/.test(arg)))
      scope.add(finding("package.json's scripts"));
  }
  if (program === "npm" && operands[0] === "set-script") scope.add(finding("package.json's scripts"));
}

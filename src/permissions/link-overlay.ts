import type * as fs from "node:fs";
import { basename, dirname, isAbsolute, join, resolve } from "node:path";
import { isMissing, type PermissionContext } from "./context.js";
import { type PathFs, resolveReal } from "./paths.js";

/**
 * `ln -s ~ h; cat h/.aws/credentials`, `ln -s .git g && echo … > g/hooks/pre-commit`: a symlink made
 * earlier in the same command does not exist yet when the command is judged, so the later path looks
 * innocent. The walker records each `ln -s` it passes and judges the rest of the command on a view of
 * the file system where those links already exist (lstat and readlink answer for them; everything
 * else is the real file system).
 */
export interface CreatedLink {
  /** Absolute path of the link, its parent resolved. */
  path: string;
  /** What readlink would return. */
  target: string;
}

const symlinkStats = {
  isSymbolicLink: () => true,
  isDirectory: () => false,
  isFile: () => false,
  isBlockDevice: () => false,
  isCharacterDevice: () => false,
  isFIFO: () => false,
  isSocket: () => false,
  nlink: 1,
} as unknown as fs.Stats;

const directoryStats = { ...symlinkStats, isSymbolicLink: () => false, isDirectory: () => true } as fs.Stats;

export function withLinks(base: PathFs, links: readonly CreatedLink[]): PathFs {
  if (links.length === 0) return base;
  const table = new Map(links.map((link) => [link.path, link.target]));
  // `mkdir -p a/b && ln -s ~ a/b/h && rm -rf a/b/h/`: the folders a link is made in exist by then too.
  const folders = new Set<string>();
  for (const link of links)
    for (let folder = dirname(link.path); folder !== dirname(folder); folder = dirname(folder))
      folders.add(folder);
  const lstat = (path: string): fs.Stats => {
    if (table.has(path)) return symlinkStats;
    if (!folders.has(path)) return base.lstat(path);
    try {
      return base.lstat(path);
    } catch (error) {
      // Missing now, made earlier in the same command (mkdir -p): a folder for the rest of the walk.
      if (isMissing(error)) return directoryStats;
      throw error;
    }
  };
  return {
    lstat,
    readlink: (path) => table.get(path) ?? base.readlink(path),
    realpath: (path) => base.realpath(path),
  };
}

/** The symlinks `ln` would create (only symbolic ones: a hard link's target is checked as a path already). */
export function linksCreatedBy(
  args: string[],
  context: Pick<PermissionContext, "cwd" | "home">,
  fsApi: PathFs,
): CreatedLink[] {
  let symbolic = false;
  let relative = false;
  let noDereference = false;
  let targetDirectory: string | undefined;
  const operands: string[] = [];
  let optionsDone = false;
  for (let index = 0; index < args.length; index++) {
    const arg = args[index] as string;
    if (optionsDone || !arg.startsWith("-") || arg === "-") operands.push(arg);
    else if (arg === "--") optionsDone = true;
    else if (arg === "--symbolic") symbolic = true;
    else if (arg === "--relative") relative = true;
    else if (arg === "--no-dereference" || arg === "--no-target-directory") noDereference = true;
    else if (arg.startsWith("--target-directory=")) targetDirectory = arg.slice(arg.indexOf("=") + 1);
    else if (arg === "-t" || arg === "--target-directory") {
      targetDirectory = args[index + 1];
      index += 1;
    } else if (!arg.startsWith("--")) {
      for (const letter of arg.slice(1)) {
        if (letter === "s") symbolic = true;
        if (letter === "r") relative = true;
        if (letter === "n" || letter === "T") noDereference = true;
      }
      if (arg.endsWith("t")) {
        targetDirectory = args[index + 1];
        index += 1;
      }
    }
  }
  if (!symbolic || operands.length === 0) return [];
  const expand = (text: string) =>
    text === "~" || text.startsWith("~/") ? context.home + text.slice(1) : text;
  const link = (target: string, where: string): CreatedLink | null => {
    const lexical = resolve(context.cwd, expand(where));
    const parent = resolveReal(dirname(lexical), context.cwd, context.home, fsApi);
    if (!parent.ok) return null;
    const path = join(parent.realPath, basename(lexical));
    const text = expand(target);
    return { path, target: relative && !isAbsolute(text) ? resolve(context.cwd, text) : text };
  };
  const intoDirectory = (directory: string, targets: string[]) =>
    targets.map((target) => link(target, join(directory, basename(expand(target)))));
  let made: (CreatedLink | null)[];
  if (targetDirectory !== undefined) made = intoDirectory(targetDirectory, operands);
  else if (operands.length === 1) made = intoDirectory(".", operands);
  else {
    const last = operands[operands.length - 1] as string;
    const targets = operands.slice(0, -1);
    const existing = resolveReal(expand(last), context.cwd, context.home, fsApi);
    const isDirectory = existing.ok && existing.exists && existing.stats?.isDirectory() === true;
    made =
      targets.length > 1 || (isDirectory && !noDereference)
        ? intoDirectory(last, targets)
        : [link(targets[0] as string, last)];
  }
  return made.filter((entry): entry is CreatedLink => entry !== null);
}

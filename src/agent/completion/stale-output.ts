import { randomUUID } from "node:crypto";
import type { Stats } from "node:fs";
import { lstat, readdir, readFile } from "node:fs/promises";
import { join, relative } from "node:path";
import type { FileChange } from "../events.js";
import type { VerificationCommand } from "./verification.js";

/**
 * Build output the check runs. A `test` script that runs `node dist/check.js` (or `mocha dist/test`)
 * with no step that rebuilds it passes or fails with the build the project had before the task: a
 * source change nobody built was "verified" by the old build. The paths the check names under a build
 * folder are recorded (metadata of every file under them) when the judge is fixed; at the gate, when
 * the task changed more than prose and every one of them is exactly as it was, the pass is the old
 * build's. Metadata, not content: a rebuild rewrites the files (new inode or ctime) even when their
 * bytes come out the same, and that is enough to know the check saw a build made during the task.
 */
export type BuiltOutputs = Record<string, string>;

const buildFolders = new Set(["dist", "build", "out", "target", "compiled", ".next"]);
const maxFiles = 5000;
/** Changes that are prose: a pass from an old build still says the same about them. */
const prose = /\.(md|markdown|txt|rst|adoc)$/i;

/** The paths under a build folder that the check (its command, the npm script and its pre-script) names. */
export async function namedBuildOutputs(
  cwd: string,
  verification: VerificationCommand | null,
): Promise<string[]> {
  if (!verification) return [];
  const texts = [verification.command];
  const script = /^npm (?:test|run (\S+))$/.exec(verification.command.trim());
  if (script) texts.push(...(await scriptBodies(cwd, script[1] ?? "test")));
  const names = new Set<string>();
  for (const text of texts) {
    for (const token of text.split(/[\s;&|()<>"'`=]+/)) {
      const cleaned = token.replace(/^\.\//, "").replace(/\/+$/, "");
      const first = cleaned.split("/")[0] ?? "";
      if (cleaned.includes("/") || buildFolders.has(cleaned)) {
        if (buildFolders.has(first) && !cleaned.includes("..") && !cleaned.includes("*")) names.add(cleaned);
      }
    }
  }
  return [...names].sort();
}

/** Metadata of every file under each named path ("absent" when it does not exist). */
export async function builtOutputsDigest(cwd: string, names: readonly string[]): Promise<BuiltOutputs> {
  const digests: BuiltOutputs = {};
  for (const name of names) digests[name] = await pathDigest(cwd, name);
  return digests;
}

/**
 * Why the check's pass is the old build's, or null: the task changed files that are not prose, and
 * every build output the check names existed at the judge's start and is exactly as it was then.
 */
export function staleBuildReason(
  command: string,
  before: BuiltOutputs,
  now: BuiltOutputs,
  files: readonly FileChange[],
): string | null {
  const named = Object.keys(before).filter((name) => before[name] !== "absent");
  if (named.length === 0) return null;
  if (!files.some((file) => !prose.test(file.path))) return null;
  if (!named.every((name) => now[name] === before[name])) return null;
  return (
    `\`${command}\` runs ${named.join(", ")}, which nothing rebuilt since before the task's first change, ` +
    "so its pass is the old build's and says nothing about the changes"
  );
}

async function pathDigest(cwd: string, name: string): Promise<string> {
  const root = join(cwd, name);
  const rootInfo = await lstatOrNull(root);
  if (rootInfo === null) return "absent";
  if (!rootInfo.isDirectory()) return describe(rootInfo);
  const lines: string[] = [];
  const pending = [root];
  while (pending.length > 0 && lines.length <= maxFiles) {
    const directory = pending.pop() as string;
    for (const entry of await readdir(directory, { withFileTypes: true })) {
      const full = join(directory, entry.name);
      if (entry.isDirectory()) pending.push(full);
      else {
        const info = await lstatOrNull(full);
        if (info) lines.push(`${relative(root, full)}\0${describe(info)}`);
      }
    }
  }
  // Too many to list: never "unchanged", so no staleness is claimed from a partial picture.
  if (lines.length > maxFiles) return `uncounted:${randomUUID()}`;
  return lines.sort().join("\n");
}

function describe(info: Stats): string {
  return `${info.size}:${info.mtimeMs}:${info.ctimeMs}:${info.ino}:${info.mode}`;
}

async function lstatOrNull(path: string): Promise<Stats | null> {
  return lstat(path).catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT") return null;
    throw error;
  });
}

async function scriptBodies(cwd: string, name: string): Promise<string[]> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(await readFile(join(cwd, "package.json"), "utf8"));
  } catch (error) {
    // detectVerification read this file to choose the command; gone or broken now means no names.
    if (error instanceof SyntaxError || (error as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw error;
  }
  const scripts = (parsed as { scripts?: Record<string, unknown> }).scripts ?? {};
  return [scripts[`pre${name}`], scripts[name]].filter((body): body is string => typeof body === "string");
}

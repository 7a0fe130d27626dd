import { createHash } from "node:crypto";
import { accessSync, constants, existsSync, readFileSync, realpathSync, statSync } from "node:fs";
import { delimiter, isAbsolute, join, relative } from "node:path";
import type { CheckChange } from "./check-changes.js";
import type { VerificationCommand } from "./verification.js";

/**
 * The runners the judge runs, hashed when it is fixed (the task's first change): the words of the
 * check that resolve to node_modules/.bin (`vitest` → node_modules/.bin/vitest and the file it links
 * to), and the words that resolve nowhere yet (recorded as absent). check-changes.ts sees only what the change picture lists, and git leaves node_modules out: a
 * task that replaced node_modules/.bin/vitest with `exit 0` changed the judge where nothing looked.
 * Files the script names (`node dist/check.js`) are not hashed here: tracked ones are check-changes'
 * and ignored ones are usually the check's own build output, rewritten by every run.
 */
export type JudgeFiles = Record<string, string>;

const maxHashedBytes = 8 * 1024 * 1024;
/** Words of one check looked up in node_modules/.bin: a check longer than this is cut, not refused. */
const maxNames = 200;

export function judgeFiles(cwd: string, verification: VerificationCommand | null): JudgeFiles {
  if (!verification) return {};
  const texts = [verification.command];
  const script = /^npm (?:test|run (\S+))$/.exec(verification.command.trim());
  if (script) texts.push(...packageScript(cwd, script[1] ?? "test"));
  const paths = new Set<string>();
  for (const text of texts) {
    for (const token of text.split(/[\s;&|()<>"'`=]+/)) {
      if (!/^[\w@.+-]+$/.test(token) || paths.size >= maxNames) continue;
      // Absent ones too: npm puts node_modules/.bin first on a script's PATH, so a program created
      // there later under a word the script runs (`node check.js` → node_modules/.bin/node) is the
      // judge replaced, though nothing resolved there when it was fixed.
      // A word found nowhere yet (`vitest` before `npm install`) is left out: installing it is work.
      const runner = join(cwd, "node_modules", ".bin", token);
      if (existsSync(runner)) {
        paths.add(runner);
        paths.add(realpathSync(runner));
      } else if (onPath(token)) paths.add(runner);
    }
  }
  // npm reads the project's .npmrc before it runs a script: `script-shell=/bin/true` there turns a
  // failing `npm test` into a silent exit 0 (session 9). Recorded present or absent, like a runner.
  if (/^npm\b/.test(verification.command.trim())) paths.add(join(cwd, npmConfig));
  const hashes: JudgeFiles = {};
  for (const path of paths) {
    const name = relative(cwd, path);
    // Files outside the project (system programs) are not the task's to change.
    if (name.startsWith("..") || isAbsolute(name)) continue;
    hashes[name] = contentHash(path);
  }
  return hashes;
}

/** What changed among the judge's files since they were hashed (none when the record is absent). */
export function judgeFileChanges(cwd: string, recorded: JudgeFiles | undefined): CheckChange[] {
  if (!recorded) return [];
  return Object.entries(recorded)
    .filter(([path, hash]) => contentHash(join(cwd, path)) !== hash)
    .map(([path, hash]) => ({
      path,
      change: `${path === npmConfig ? "npm configuration the check runs with" : "file the check runs"} ${
        hash === "absent" ? "created" : contentHash(join(cwd, path)) === "absent" ? "deleted" : "modified"
      }`,
    }));
}

const npmConfig = ".npmrc";

function contentHash(path: string): string {
  try {
    const info = statSync(path);
    if (!info.isFile()) return info.isDirectory() ? "directory" : "other";
    if (info.size > maxHashedBytes) return `size:${info.size}:ctime:${info.ctimeMs}`;
    return createHash("sha256").update(readFileSync(path)).digest("hex");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return "absent";
    throw error;
  }
}

function packageScript(cwd: string, name: string): string[] {
  try {
    const parsed: unknown = JSON.parse(readFileSync(join(cwd, "package.json"), "utf8"));
    const scripts = (parsed as { scripts?: Record<string, unknown> }).scripts;
    const body = scripts?.[name];
    return typeof body === "string" ? [body] : [];
  } catch (error) {
    // detectVerification already read this file to choose the command; gone or broken now means no names.
    if (error instanceof SyntaxError || (error as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw error;
  }
}

/** A program the shell would find on PATH today (`node`, `sh`, `python3`). */
function onPath(name: string): boolean {
  for (const folder of (process.env.PATH ?? "").split(delimiter)) {
    if (folder === "" || !isAbsolute(folder)) continue;
    try {
      accessSync(join(folder, name), constants.X_OK);
      return true;
    } catch (error) {
      if (!["ENOENT", "EACCES", "ENOTDIR"].includes(String((error as NodeJS.ErrnoException).code)))
        throw error;
    }
  }
  return false;
}

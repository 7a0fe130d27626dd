import { createHash } from "node:crypto";
import { existsSync, readFileSync, realpathSync, statSync } from "node:fs";
import { isAbsolute, join, relative } from "node:path";
import type { CheckChange } from "./check-changes.js";
import type { VerificationCommand } from "./verification.js";

/**
 * The runners the judge runs, hashed when it is fixed (the task's first change): the words of the
 * check that resolve to node_modules/.bin (`vitest` → node_modules/.bin/vitest and the file it links
 * to). check-changes.ts sees only what the change picture lists, and git leaves node_modules out: a
 * task that replaced node_modules/.bin/vitest with `exit 0` changed the judge where nothing looked.
 * Files the script names (`node dist/check.js`) are not hashed here: tracked ones are check-changes'
 * and ignored ones are usually the check's own build output, rewritten by every run.
 */
export type JudgeFiles = Record<string, string>;

const maxHashedBytes = 8 * 1024 * 1024;

export function judgeFiles(cwd: string, verification: VerificationCommand | null): JudgeFiles {
  if (!verification) return {};
  const texts = [verification.command];
  const script = /^npm (?:test|run (\S+))$/.exec(verification.command.trim());
  if (script) texts.push(...packageScript(cwd, script[1] ?? "test"));
  const paths = new Set<string>();
  for (const text of texts) {
    for (const token of text.split(/[\s;&|()<>"'`=]+/)) {
      if (token === "") continue;
      const runner = join(cwd, "node_modules", ".bin", token);
      if (/^[\w@.+-]+$/.test(token) && existsSync(runner)) {
        paths.add(runner);
        paths.add(realpathSync(runner));
      }
    }
  }
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
      change:
        hash === "absent"
          ? "file the check runs created"
          : contentHash(join(cwd, path)) === "absent"
            ? "file the check runs deleted"
            : "file the check runs modified",
    }));
}

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

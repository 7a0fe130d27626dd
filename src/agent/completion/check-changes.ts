import { readFile, stat } from "node:fs/promises";
import { basename, join } from "node:path";
import { z } from "zod";
import { definitionFiles, testFile, testFolder } from "../../permissions/check-files.js";
import type { ChangeReport } from "./changes.js";
import { type NamedByCheck, namedByVerification } from "./named-by-check.js";
import type { VerificationCommand } from "./verification.js";
import { codeFile, testWeakening } from "./weakened-tests.js";

/** A change to how the task is judged: the file and what changed, in words. */
export interface CheckChange {
  path: string;
  change: string;
}

/** What kind of check file a path is by its name (a runner config, a test), or null for none. */
export function checkFileKind(path: string): string | null {
  if (basename(path) === "package.json") return "package.json";
  const definition = definitionFiles.find((entry) => entry.pattern.test(path));
  if (definition) return definition.what;
  return testFile.test(path) ? "test" : null;
}

const scriptsSchema = z.object({ scripts: z.record(z.string(), z.string()).optional() }).loose();

export interface CheckChangeInput {
  report: ChangeReport;
  /** Content of a file at the baseline (path relative to the report's root). */
  baselineContent(path: string): Promise<Buffer | null>;
  /** The verification command fixed at the first change. */
  verification: VerificationCommand | null;
}

/**
 * What the task changed about its own checks, comparing the baseline with now:
 * - package.json scripts (added, removed or rewritten);
 * - Makefiles, test runner and CI configuration (created, modified or deleted);
 * - tests that existed at the baseline (modified or deleted) — by name, by folder, or because the
 *   baseline's verification script names the file (`"test": "node check.js"`). New tests are fine.
 */
export async function findCheckChanges(input: CheckChangeInput): Promise<CheckChange[]> {
  const { report } = input;
  const root = report.root;
  if (!root) return [];
  const created = new Set(report.created ?? []);
  const deleted = new Set(report.deleted ?? []);
  const named = await filesNamedByVerification(input);
  const found: CheckChange[] = [];
  let read = 0;
  for (const file of report.files) {
    const path = file.path;
    const how = created.has(path) ? "created" : deleted.has(path) ? "deleted" : "modified";
    if (basename(path) === "package.json") {
      const before = await input.baselineContent(path);
      const after = deleted.has(path) ? null : await readFile(join(root, path)).catch(() => null);
      const change = scriptChange(before, after);
      if (change) found.push({ path, change });
      continue;
    }
    const definition = definitionFiles.find((entry) => entry.pattern.test(path));
    if (definition) {
      found.push({ path, change: `${definition.what} ${how}` });
      continue;
    }
    const isTest = named.matches(path) || testFile.test(path);
    const testLocation = isTest || testFolder.test(path.split("/").slice(0, -1).join("/"));
    // Content is read for source files only, a bounded number of them (a task that rewrote more is
    // still judged by name for the rest).
    const weakened =
      codeFile.test(path) && read++ < maxFilesRead
        ? testWeakening(
            how === "created" ? null : await text(input.baselineContent(path)),
            how === "deleted" ? null : await text(readFile(join(root, path))),
            testLocation,
          )
        : null;
    if (how !== "created" && isTest)
      found.push({
        path,
        change: `test that existed before the task ${how}${weakened ? `: ${weakened}` : ""}`,
      });
    else if (weakened) found.push({ path, change: `tests in a file ${how}: ${weakened}` });
  }
  return found;
}

const maxFilesRead = 200;
const maxBytesRead = 1024 * 1024;

/** A file's text for the content rules, or null when absent or too large to be a hand-written test. */
async function text(content: Promise<Buffer | null>): Promise<string | null> {
  const buffer = await content.catch((error: NodeJS.ErrnoException) => {
    if (error.code === "ENOENT" || error.code === "EISDIR") return null;
    throw error;
  });
  return buffer === null || buffer.length > maxBytesRead ? null : buffer.toString("utf8");
}

function scriptsOf(content: Buffer | null): Record<string, string> | null {
  if (content === null) return null;
  try {
    return scriptsSchema.safeParse(JSON.parse(content.toString("utf8"))).data?.scripts ?? {};
  } catch {
    // Unparseable now (or then): the scripts cannot be compared, which is itself a change to report.
    return { "(unparseable package.json)": content.toString("utf8").slice(0, 80) };
  }
}

/** package.json keys that configure a test runner or linter in place of a config file. */
const inlineCheckKeys = ["jest", "ava", "mocha", "c8", "nyc", "tap", "xo", "eslintConfig", "prettier"];

function inlineConfigChange(before: Buffer | null, after: Buffer | null): string[] {
  const read = (content: Buffer | null): Record<string, unknown> => {
    if (content === null) return {};
    try {
      const parsed: unknown = JSON.parse(content.toString("utf8"));
      return typeof parsed === "object" && parsed !== null ? (parsed as Record<string, unknown>) : {};
    } catch {
      return {}; // scriptsOf reports an unparseable package.json
    }
  };
  const old = read(before);
  const next = read(after);
  return inlineCheckKeys
    .filter((key) => JSON.stringify(old[key]) !== JSON.stringify(next[key]))
    .map(
      (key) =>
        `"${key}" configuration ${old[key] === undefined ? "added" : next[key] === undefined ? "removed" : "changed"}`,
    );
}

function scriptChange(before: Buffer | null, after: Buffer | null): string | null {
  const inline = inlineConfigChange(before, after);
  const scripts = scriptsChange(before, after);
  const all = [...(scripts ? [scripts] : []), ...inline];
  return all.length > 0 ? all.join(", ") : null;
}

function scriptsChange(before: Buffer | null, after: Buffer | null): string | null {
  const old = scriptsOf(before);
  const next = scriptsOf(after);
  if (old === null && next === null) return null;
  if (old === null) return next && Object.keys(next).length > 0 ? "package.json with scripts created" : null;
  if (next === null) return "package.json deleted";
  const names = [...new Set([...Object.keys(old), ...Object.keys(next)])].sort();
  const changes = names
    .filter((name) => old[name] !== next[name])
    .map((name) =>
      old[name] === undefined
        ? `script "${name}" added (${JSON.stringify(next[name])})`
        : next[name] === undefined
          ? `script "${name}" removed (was ${JSON.stringify(old[name])})`
          : `script "${name}" changed from ${JSON.stringify(old[name])} to ${JSON.stringify(next[name])}`,
    );
  return changes.length > 0 ? changes.join(", ") : null;
}

/** Files, folders and globs the baseline's verification script names (`node check.js`, `node --test checks/`). */
async function filesNamedByVerification(input: CheckChangeInput): Promise<NamedByCheck> {
  const command = input.verification?.command;
  if (!command) return namedByVerification([], () => false);
  const texts = [command];
  const script = /^(?:npm|yarn|pnpm) (?:test|run (\S+))$/.exec(command.trim());
  if (script) {
    const scripts = scriptsOf(await input.baselineContent(packageJsonPath(input.report)));
    const body = scripts?.[script[1] ?? "test"];
    if (body) texts.push(body);
  }
  const make = /^g?make(?:\s+(?:-s\s+)?([\w.-]+))?$/.exec(command.trim());
  if (make) {
    const makefile = await input.baselineContent("Makefile");
    if (makefile) texts.push(...makeRecipe(makefile.toString("utf8"), make[1] ?? null));
  }
  const root = input.report.root ?? "";
  const deleted = input.report.deleted ?? [];
  const folders = new Set<string>();
  for (const text of texts)
    for (const word of text.split(/[\s;&|()<>"'`=]+/)) {
      if (!/^[\w.-]+$/.test(word) || word === "." || word === "..") continue;
      const isFolder = await stat(join(root, word)).then(
        (info) => info.isDirectory(),
        () => false,
      );
      if (isFolder || deleted.some((path) => path.startsWith(`${word}/`))) folders.add(word);
    }
  return namedByVerification(texts, (word) => folders.has(word));
}

/** The recipe lines of a Makefile target (the first target when none is named), and its prerequisites'. */
function makeRecipe(text: string, target: string | null): string[] {
  const rules = new Map<string, { prerequisites: string[]; recipe: string[] }>();
  let first: string | null = null;
  let current: { prerequisites: string[]; recipe: string[] } | null = null;
  for (const line of text.split("\n")) {
    const rule = /^([\w./-]+(?:\s+[\w./-]+)*)\s*::?(?!=)\s*([^;]*)/.exec(line);
    if (rule && !line.startsWith("\t")) {
      current = { prerequisites: (rule[2] ?? "").split(/\s+/).filter(Boolean), recipe: [] };
      for (const name of (rule[1] ?? "").split(/\s+/)) {
        if (name.startsWith(".")) continue;
        first ??= name;
        rules.set(name, current);
      }
    } else if (line.startsWith("\t") && current) current.recipe.push(line.trim());
    else if (line.trim() !== "" && !line.startsWith("#")) current = null;
  }
  const lines: string[] = [];
  const pending = [target ?? first];
  const seen = new Set<string>();
  while (pending.length > 0 && seen.size < 20) {
    const name = pending.pop();
    if (!name || seen.has(name)) continue;
    seen.add(name);
    const rule = rules.get(name);
    if (!rule) continue;
    lines.push(...rule.recipe);
    pending.push(...rule.prerequisites);
  }
  return lines;
}

/** package.json of the task's project, relative to the report's root (git reports from the top). */
function packageJsonPath(report: ChangeReport): string {
  const match = report.files.find((file) => basename(file.path) === "package.json");
  return match?.path ?? "package.json";
}

export function describeCheckChanges(changes: readonly CheckChange[]): string {
  return changes.map((change) => `${change.path} (${change.change})`).join("; ");
}

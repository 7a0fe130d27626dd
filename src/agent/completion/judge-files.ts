import { createHash } from "node:crypto";
import {
  accessSync,
  constants,
  existsSync,
  readdirSync,
  readFileSync,
  realpathSync,
  statSync,
} from "node:fs";
import { delimiter, dirname, isAbsolute, join, relative, sep } from "node:path";
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
  const script = /^(?:npm|yarn|pnpm) (?:test|run (\S+))$/.exec(verification.command.trim());
  if (script) texts.push(...packageScript(cwd, script[1] ?? "test"));
  const paths = new Set<string>();
  for (const text of texts) {
    for (const token of text.split(/[\s;&|()<>"'`=]+/)) {
      if (!/^[\w@.+-]+$/.test(token) || paths.size >= maxNames) continue;
      for (const name of runnerConfigFiles(cwd, token)) paths.add(join(cwd, name));
      // Absent ones too: npm puts node_modules/.bin first on a script's PATH, so a program created
      // there later under a word the script runs (`node check.js` → node_modules/.bin/node) is the
      // judge replaced, though nothing resolved there when it was fixed.
      // A word found nowhere yet (`vitest` before `npm install`) is left out: installing it is work.
      const runner = join(cwd, "node_modules", ".bin", token);
      if (existsSync(runner)) {
        paths.add(runner);
        const target = realpathSync(runner);
        paths.add(target);
        // The package the runner is (node_modules/vitest/): its entry file only imports dist/cli.js,
        // where `process.exit(0)` is the judge replaced as surely (session 11). Hashed as one tree.
        const pack = packageFolder(cwd, target);
        if (pack !== null) paths.add(`${pack}${sep}`);
      } else if (onPath(token)) paths.add(runner);
    }
  }
  // npm reads the project's .npmrc before it runs a script: `script-shell=/bin/true` there turns a
  // failing `npm test` into a silent exit 0 (session 9). Recorded present or absent, like a runner.
  if (/^npm\b/.test(verification.command.trim())) paths.add(join(cwd, npmConfig));
  const hashes: JudgeFiles = {};
  for (const path of paths) {
    const name = relative(cwd, path) + (path.endsWith(sep) ? "/" : "");
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
      change: `${path === npmConfig ? "npm configuration the check runs with" : configNames.has(path) ? "configuration the check's runner reads" : path.endsWith("/") ? "package of the runner the check runs" : "file the check runs"} ${
        hash === "absent" ? "created" : contentHash(join(cwd, path)) === "absent" ? "deleted" : "modified"
      }`,
    }));
}

const npmConfig = ".npmrc";

const scriptExtensions = ["js", "cjs", "mjs", "ts", "cts", "mts"];
const each = (stem: string, extensions: string[]) => extensions.map((extension) => `${stem}.${extension}`);

/**
 * The files each runner reads, at the check's folder, before it decides what to run and how: present
 * or absent when the judge is fixed (a `bunfig.toml` with a test preload, a `.yarnrc.yml` whose
 * yarnPath is a script that exits 0, a `.cargo/config.toml` test runner of `true`, a `go.work` that
 * swaps the module under test, a pytest `conftest.py` that skips every test). The change picture
 * names tracked ones by rule only where a rule lists them (check-files.ts); these are compared by
 * content wherever git puts them (tracked, untracked, ignored).
 */
const runnerConfigs: { word: RegExp; files: string[] }[] = [
  { word: /^(?:yarn|yarnpkg)$/, files: [".yarnrc", ".yarnrc.yml", npmConfig] },
  { word: /^(?:pnpm|pnpx)$/, files: [".pnpmfile.cjs", npmConfig] },
  { word: /^(?:bun|bunx)$/, files: ["bunfig.toml", npmConfig] },
  {
    word: /^vitest$/,
    files: [
      ...each("vitest.config", scriptExtensions),
      ...each("vite.config", scriptExtensions),
      ...each("vitest.workspace", [...scriptExtensions, "json"]),
    ],
  },
  {
    word: /^jest$/,
    files: [
      ...each("jest.config", [...scriptExtensions, "json"]),
      ...each("babel.config", ["js", "cjs", "mjs", "json"]),
      ".babelrc",
      ".babelrc.js",
    ],
  },
  { word: /^_?mocha$/, files: each(".mocharc", ["js", "cjs", "mjs", "json", "jsonc", "yaml", "yml"]) },
  {
    word: /^(?:pytest|py\.test|tox|nox)$/,
    files: [
      "pytest.ini",
      ".pytest.ini",
      "pytest.toml",
      ".pytest.toml",
      "pyproject.toml",
      "tox.ini",
      "setup.cfg",
      "conftest.py",
      "noxfile.py",
    ],
  },
  { word: /^(?:make|gmake)$/, files: ["GNUmakefile", "makefile", "Makefile"] },
  {
    word: /^cargo$/,
    files: [".cargo/config.toml", ".cargo/config", "rust-toolchain", "rust-toolchain.toml"],
  },
  { word: /^go$/, files: ["go.work"] },
];

const configNames = new Set([
  ...runnerConfigs.flatMap((runner) => runner.files.filter((name) => name !== npmConfig)),
]);

/** The config files of the runner a word names, with a Makefile's includes for make. */
function runnerConfigFiles(cwd: string, word: string): string[] {
  const files = runnerConfigs.filter((runner) => runner.word.test(word)).flatMap((runner) => runner.files);
  if (/^g?make$/.test(word)) files.push(...makeIncludes(cwd));
  return files;
}

const includeLine = /^[ \t]*-?s?include[ \t]+(.+)$/gm;
const maxIncludeDepth = 4;

/**
 * Files the project's makefiles include (`include rules.mk`, `-include local.mk`), followed a few
 * levels deep; names built from variables or globs are left out (what they resolve to is make's).
 */
function makeIncludes(cwd: string): string[] {
  const found = new Set<string>();
  let pending = ["GNUmakefile", "makefile", "Makefile"];
  for (let depth = 0; depth < maxIncludeDepth && pending.length > 0; depth += 1) {
    const next: string[] = [];
    for (const name of pending) {
      const text = readIfFile(join(cwd, name));
      if (text === null) continue;
      for (const match of text.matchAll(includeLine)) {
        for (const included of (match[1] ?? "").split(/\s+/)) {
          if (included === "" || /[$*?[]/.test(included) || found.has(included)) continue;
          found.add(included);
          next.push(included);
        }
      }
    }
    pending = next;
  }
  return [...found];
}

function readIfFile(path: string): string | null {
  try {
    return statSync(path).isFile() ? readFileSync(path, "utf8") : null;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw error;
  }
}

/** The folder of the package (inside the project's node_modules) a runner's file belongs to, or null. */
function packageFolder(cwd: string, file: string): string | null {
  const modules = join(cwd, "node_modules") + sep;
  for (let folder = dirname(file); folder.startsWith(modules) && folder.length > modules.length; ) {
    if (existsSync(join(folder, "package.json"))) return folder;
    const parent = dirname(folder);
    if (parent === folder) break;
    folder = parent;
  }
  return null;
}

const maxTreeFiles = 5000;
const maxTreeBytes = 64 * 1024 * 1024;

/**
 * A digest of a package folder's files (names and contents; nested node_modules left out — those are
 * other packages). Past the bounds the rest is digested by name and size only.
 */
function treeHash(folder: string): string {
  const hash = createHash("sha256");
  let files = 0;
  let bytes = 0;
  const walk = (at: string) => {
    const entries = readdirSync(at, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1));
    for (const entry of entries) {
      const path = join(at, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== "node_modules") walk(path);
        continue;
      }
      const info = statSync(path, { throwIfNoEntry: false });
      if (!info?.isFile()) continue;
      files += 1;
      bytes += info.size;
      hash.update(`${relative(folder, path)}\u0000${info.size}\u0000`);
      if (files <= maxTreeFiles && bytes <= maxTreeBytes) hash.update(readFileSync(path));
    }
  };
  walk(folder);
  return `tree:${hash.digest("hex")}`;
}

function contentHash(path: string): string {
  try {
    if (path.endsWith("/") || path.endsWith(sep)) {
      return statSync(path).isDirectory() ? treeHash(path) : "absent";
    }
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

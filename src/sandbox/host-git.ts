import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { isAbsolute, join, resolve } from "node:path";
import { isSecretEnvName } from "./secret-env.js";

/**
 * Git that Mercury runs on the host, outside the sandbox, in a repository the agent may have written
 * (its `.git/config`, `.gitattributes`, `.git/info/attributes`, hooks). Git runs programs that those
 * name: a filter driver's clean/smudge/process command (`git add`, `git hash-object`), a diff
 * driver's textconv or command (`git diff`), `core.fsmonitor` (any command that reads the index),
 * hooks (`post-index-change`), a promisor remote's upload-pack (lazy fetch of a missing object in a
 * partial clone). Session 11 found `mercury undo`'s bare `git hash-object` running a planted clean
 * filter on the host. Two ways out, both here:
 *
 * - `objectStoreGit`: for what needs only objects (undo: rev-parse, cat-file, diff of two trees,
 *   hashing a file), git is pointed at the repository's object folder through a git folder Mercury
 *   makes itself (`GIT_DIR` + `GIT_OBJECT_DIRECTORY`): the repository's config, attributes, hooks
 *   and index are never read, nor any system or global config.
 * - `hostGitEnvironment` (+ `neutralizedDrivers`): for the change tracker's fallback without any
 *   sandbox, where git must read the working tree: the keys that run programs are overridden through
 *   `GIT_CONFIG_COUNT` (key and value passed apart, so a driver name holding `=` cannot break the
 *   override the way `-c name=value` would), and every filter, diff and merge driver the effective
 *   config names is switched off.
 */

/** Overrides that switch off every program-running key git reads for local, read-mostly work. */
export const hostGitOverrides: ReadonlyArray<readonly [string, string]> = [
  ["core.fsmonitor", "false"],
  ["core.hooksPath", "/dev/null"],
  // A missing object in a partial clone is fetched from the promisor remote: no transport at all.
  ["protocol.allow", "never"],
  ["core.attributesFile", "/dev/null"],
  ["gc.auto", "0"],
  ["maintenance.auto", "false"],
  ["core.pager", "cat"],
];

/**
 * Inside the sandbox what git runs is contained (and session 9's tests prove it by letting a hook
 * run there): only the transport stays off, so a partial clone's lazy fetch cannot leave.
 */
export const containedGitOverrides: ReadonlyArray<readonly [string, string]> = [
  ["protocol.allow", "never"],
  ["gc.auto", "0"],
  ["maintenance.auto", "false"],
];

/**
 * The environment for git on the host: Mercury's own without secrets and without any inherited
 * `GIT_*` variable (GIT_DIR, GIT_EXTERNAL_DIFF, GIT_CONFIG_PARAMETERS, GIT_SSH_COMMAND… would steer
 * git past these overrides), then the overrides.
 */
export function hostGitEnvironment(
  overrides: ReadonlyArray<readonly [string, string]> = hostGitOverrides,
  base: NodeJS.ProcessEnv = process.env,
): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(base))
    if (!name.startsWith("GIT_") && !isSecretEnvName(name)) env[name] = value;
  env.GIT_TERMINAL_PROMPT = "0";
  env.GIT_NO_LAZY_FETCH = "1";
  env.GIT_ATTR_NOSYSTEM = "1";
  env.GIT_PAGER = "cat";
  env.GIT_OPTIONAL_LOCKS = "0";
  env.GIT_CONFIG_COUNT = String(overrides.length);
  overrides.forEach(([key, value], index) => {
    env[`GIT_CONFIG_KEY_${index}`] = key;
    env[`GIT_CONFIG_VALUE_${index}`] = value;
  });
  return env;
}

/** Keys of a driver that name a program (`filter.<driver>.clean`, `diff.<driver>.textconv`, …). */
const driverKey = /^(filter|diff|merge)\.(.+)\.(clean|smudge|process|textconv|command|driver)$/s;

/**
 * Overrides that switch off every filter, diff and merge driver named in `configNames` (the
 * NUL-separated answer of `git config -z --name-only --get-regexp`): an empty command is no command
 * for git, and `required=false` keeps a filter switched off from being an error.
 */
export function neutralizedDrivers(configNames: string): Array<[string, string]> {
  const overrides: Array<[string, string]> = [];
  const seen = new Set<string>();
  for (const name of configNames.split("\0")) {
    const match = driverKey.exec(name.trim());
    if (!match) continue;
    const [, section, driver] = match;
    const id = `${section}\0${driver}`;
    if (seen.has(id)) continue;
    seen.add(id);
    if (section === "filter")
      for (const key of ["clean", "smudge", "process"]) overrides.push([`filter.${driver}.${key}`, ""]);
    if (section === "filter") overrides.push([`filter.${driver}.required`, "false"]);
    // Not `command`: git would try to run an empty one. Diffs on the host always pass --no-ext-diff.
    if (section === "diff") overrides.push([`diff.${driver}.textconv`, ""]);
    if (section === "merge") overrides.push([`merge.${driver}.driver`, ""]);
  }
  return overrides;
}

/**
 * `args` with the external diff (`diff.external`, a diff driver's `command`, GIT_EXTERNAL_DIFF) and
 * textconv switched off for the commands that diff: those are the only switches for them.
 */
export function withoutExternalDiff(args: readonly string[]): string[] {
  const [command, ...rest] = args;
  if (command !== "diff" && command !== "log" && command !== "show") return [...args];
  return [command, "--no-ext-diff", "--no-textconv", ...rest];
}

/** The git config names that could name a driver, for `neutralizedDrivers`. */
export const driverNameQuery = ["config", "-z", "--name-only", "--get-regexp", "^(filter|diff|merge)\\."];

export class HostGitError extends Error {
  override name = "HostGitError";
}

export interface ObjectStoreGit {
  /** git's stdout, or null when it exited non-zero (an object that is not there). */
  run(args: string[]): Buffer | null;
  close(): void;
}

/**
 * Git that sees one repository's objects and nothing else of it. `gitDir` is the repository's git
 * folder as Mercury recorded it; a linked worktree's objects are in its `commondir`.
 */
export function objectStoreGit(gitDir: string): ObjectStoreGit {
  const common = commonDirOf(gitDir);
  const sha256 = /^\s*objectformat\s*=\s*sha256\s*$/im.test(readConfigText(join(common, "config")));
  const own = mkdtempSync(join(tmpdir(), "mercury-objects-"));
  mkdirSync(join(own, "refs"));
  writeFileSync(join(own, "HEAD"), "ref: refs/heads/mercury-undo\n");
  writeFileSync(
    join(own, "config"),
    sha256
      ? "[core]\n\trepositoryformatversion = 1\n\tbare = true\n[extensions]\n\tobjectformat = sha256\n"
      : "[core]\n\trepositoryformatversion = 0\n\tbare = true\n",
  );
  const env = hostGitEnvironment();
  env.GIT_DIR = own;
  env.GIT_OBJECT_DIRECTORY = join(common, "objects");
  env.GIT_CONFIG_NOSYSTEM = "1";
  env.GIT_CONFIG_GLOBAL = "/dev/null";
  env.GIT_NO_REPLACE_OBJECTS = "1";
  return {
    run(args) {
      const result = spawnSync("git", ["--no-pager", ...args], {
        cwd: own,
        env,
        maxBuffer: 256 * 1024 * 1024,
      });
      if (result.error) throw new HostGitError(`git could not run: ${result.error.message}`);
      return result.status === 0 ? result.stdout : null;
    },
    close() {
      rmSync(own, { recursive: true, force: true });
    },
  };
}

function commonDirOf(gitDir: string): string {
  let pointer: string;
  try {
    pointer = readFileSync(join(gitDir, "commondir"), "utf8").trim();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return gitDir;
    throw new HostGitError(`cannot read ${join(gitDir, "commondir")}: ${(error as Error).message}`);
  }
  return isAbsolute(pointer) ? pointer : resolve(gitDir, pointer);
}

function readConfigText(path: string): string {
  try {
    return readFileSync(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return "";
    throw new HostGitError(`cannot read ${path}: ${(error as Error).message}`);
  }
}

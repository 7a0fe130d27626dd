import { readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/**
 * A validated copy of config.yaml, so that a command whose config file has not changed since it was
 * last validated reads it without parsing YAML again (the `yaml` package costs most commands more
 * than the rest of their config work). The copy is used only when both match exactly:
 *  - the file's text (any edit, even a space, is a miss), and
 *  - the code that validates it: the text of the sources the validation depends on (`load`,
 *    `schema`, `mcp-schema`, `dashboard-schema`, `provider-defaults`, and the sandbox's
 *    network-grant check), so a build that changes a key, a limit or the secret check (on any
 *    branch) invalidates every copy without anyone bumping a version.
 * Both are kept as text and compared as strings, not hashed: `node:crypto` alone costs a `mercury
 * memory` command ~4 ms to load, more than the rest of its settings (BENCHMARKS.md, memory-command
 * latency); the copy grows by the sources' ~20 kB, read in one go.
 * A miss parses and validates as always, with the same errors; only a file that passed is copied.
 * Trade-off (docs/DECISIONS.md): the copy lives in MERCURY_HOME, next to the file; whoever can write
 * it can write config.yaml itself, so it grants nothing new.
 */

interface Snapshot {
  format: 2;
  validator: string;
  text: string;
  config: unknown;
}

let validatorSources: string | undefined;

function validator(): string {
  if (validatorSources !== undefined) return validatorSources;
  // The same extension as this module: .js when built, .ts under the test runner.
  const extension = import.meta.url.endsWith(".ts") ? ".ts" : ".js";
  // The memory fast path's CommonJS copy (dist/fast/, tsconfig.fast.json) is compiled from the same
  // sources in the same build: it reads the program's files, so that both share one validated copy.
  const here = import.meta.url.replace("/dist/fast/", "/dist/");
  // Every source the validation depends on (the provider names, the dashboard and sandbox checks),
  // each preceded by its name and length so that no two sets of sources read the same.
  let sources = "";
  for (const name of [
    "load",
    "schema",
    "mcp-schema",
    "dashboard-schema",
    "provider-defaults",
    "snapshot",
    "../sandbox/network-grants",
  ]) {
    const source = readFileSync(fileURLToPath(new URL(`./${name}${extension}`, here)), "utf8");
    sources += `${name}${extension} ${source.length}\n${source}`;
  }
  validatorSources = sources;
  return validatorSources;
}

/**
 * One copy per folder: `mercury setup` and `config set` validate a temporary file next to
 * config.yaml before renaming it into place, and that validation leaves the copy the next read uses.
 */
export function snapshotPath(configPath: string): string {
  return join(dirname(configPath), ".config.validated.json");
}

/** The validated config for exactly this text, or null (no copy, another text, other code). */
export function readSnapshot(configPath: string, text: string): unknown {
  let raw: string;
  try {
    raw = readFileSync(snapshotPath(configPath), "utf8");
  } catch {
    // No copy yet (or unreadable): validate the file itself.
    return null;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    // A torn or hand-edited copy: validate the file itself (and the copy is rewritten).
    return null;
  }
  if (!parsed || typeof parsed !== "object") return null;
  const snapshot = parsed as Partial<Snapshot>;
  if (snapshot.format !== 2 || snapshot.text !== text || snapshot.validator !== validator()) return null;
  return snapshot.config ?? null;
}

/**
 * Records that `text` validated to `config`. Written to a temporary name and renamed, so a
 * concurrent reader sees the old copy or the new one. A copy that cannot be written (read-only
 * home, full disk) only means the next command validates again: the error is not the user's.
 */
export function writeSnapshot(configPath: string, text: string, config: unknown): void {
  const path = snapshotPath(configPath);
  const temporary = `${path}.${process.pid}.tmp`;
  const snapshot: Snapshot = { format: 2, validator: validator(), text, config };
  try {
    writeFileSync(temporary, JSON.stringify(snapshot), { mode: 0o600 });
    renameSync(temporary, path);
  } catch (error) {
    if (!(error instanceof Error && "code" in error)) throw error;
    rmSync(temporary, { force: true });
  }
}

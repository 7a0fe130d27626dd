import { existsSync, readFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { z } from "zod";

export interface VerificationCommand {
  command: string;
  /** Where it came from, for messages: "configured", "package.json script test", "Makefile", … */
  source: string;
}

const packageJsonSchema = z.object({ scripts: z.record(z.string(), z.string()).optional() }).loose();

/** npm's placeholder test script fails on purpose; it is not a test suite. */
const npmPlaceholder = /no test specified/;

/**
 * The command that proves the project still works: the configured one, else detected from the
 * project files in `cwd`. Null when nothing is found (the evidence gate then pauses and says so).
 * A package.json that is not valid JSON is an error the user must see, not "no verification".
 */
export function detectVerification(cwd: string, configured?: string | null): VerificationCommand | null {
  if (configured && configured.trim() !== "") return { command: configured.trim(), source: "configured" };
  const packagePath = join(cwd, "package.json");
  if (existsSync(packagePath)) {
    let raw: unknown;
    try {
      raw = JSON.parse(readFileSync(packagePath, "utf8"));
    } catch (error) {
      throw new Error(
        `package.json in ${cwd} is not valid JSON (${error instanceof Error ? error.message : String(error)}); fix it so the project's checks can run`,
      );
    }
    const scripts = packageJsonSchema.safeParse(raw).data?.scripts ?? {};
    for (const name of ["test", "typecheck", "build", "check"]) {
      const script = scripts[name];
      if (script === undefined || (name === "test" && npmPlaceholder.test(script))) continue;
      return {
        command: name === "test" ? "npm test" : `npm run ${name}`,
        source: `package.json script "${name}"`,
      };
    }
  }
  const makefile = ["Makefile", "makefile", "GNUmakefile"].find((name) => existsSync(join(cwd, name)));
  if (makefile && /^test\s*:/m.test(readFileSync(join(cwd, makefile), "utf8")))
    return { command: "make test", source: `${makefile} target "test"` };
  if (existsSync(join(cwd, "Cargo.toml"))) return { command: "cargo test", source: "Cargo.toml" };
  if (existsSync(join(cwd, "go.mod"))) return { command: "go test ./...", source: "go.mod" };
  if (existsSync(join(cwd, "pyproject.toml"))) return { command: "pytest", source: "pyproject.toml" };
  return null;
}

function normalize(command: string): string {
  return command
    .trim()
    .replace(/\s+/g, " ")
    .replace(/^npm run test\b/, "npm test")
    .replace(/^npm t\b/, "npm test");
}

/** A run_command counts as the verification only when it is that command (spacing and npm aliases aside). */
export function isVerificationCommand(command: string, verification: VerificationCommand): boolean {
  return normalize(command) === normalize(verification.command);
}

/** Files that make a folder a project (something with a build or a test suite to keep working). */
const projectManifests = [
  "package.json",
  "Makefile",
  "makefile",
  "GNUmakefile",
  "Cargo.toml",
  "go.mod",
  "pyproject.toml",
  "setup.py",
  "setup.cfg",
  "requirements.txt",
  "pom.xml",
  "build.gradle",
  "build.gradle.kts",
  "Gemfile",
  "composer.json",
  "CMakeLists.txt",
  "deno.json",
  "mix.exs",
];

/**
 * A folder that is no project: no manifest and no verification command (configured or detected).
 * Plain file tasks there ("make notes.txt with …") complete with "no checks to run here" instead of
 * pausing for a verification that cannot exist (issue 13). A subfolder of a repository whose top
 * (or a folder in between) holds a manifest is part of that project, not a plain folder: its
 * changes can break the project's checks.
 */
export function isPlainFolder(cwd: string, configured?: string | null): boolean {
  if (configured && configured.trim() !== "") return false;
  const folders = foldersUpToRepositoryTop(resolve(cwd));
  return !folders.some((folder) => projectManifests.some((name) => existsSync(join(folder, name))));
}

/**
 * The project a subfolder belongs to: the nearest folder above `cwd` (up to the repository's top)
 * holding a manifest, with the verification detected there. Null for a project's own folder, or
 * outside a project. The task's checks are not run there: see the gate's pause and DECISIONS.
 */
export function enclosingProject(
  cwd: string,
): { folder: string; manifest: string; check: string | null } | null {
  const [, ...above] = foldersUpToRepositoryTop(resolve(cwd));
  for (const folder of above) {
    const manifest = projectManifests.find((name) => existsSync(join(folder, name)));
    if (!manifest) continue;
    try {
      return { folder, manifest, check: detectVerification(folder)?.command ?? null };
    } catch (error) {
      // The pause names the project and why its check could not be read.
      const why = error instanceof Error ? error.message : String(error);
      return { folder, manifest: `${manifest}, unreadable: ${why}`, check: null };
    }
  }
  return null;
}

/** `cwd`, then its parents up to the git repository's top; only `cwd` outside a repository. */
function foldersUpToRepositoryTop(cwd: string): string[] {
  const chain: string[] = [];
  for (let folder = cwd; ; folder = dirname(folder)) {
    chain.push(folder);
    if (existsSync(join(folder, ".git"))) return chain;
    if (dirname(folder) === folder) return [cwd];
  }
}

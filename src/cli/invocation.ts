import { accessSync, constants, realpathSync } from "node:fs";
import { basename, delimiter, dirname, join } from "node:path";

/**
 * How the person can run Mercury again, for "next, run …" hints: plain `mercury` when that name on
 * their PATH is this very program (npm link, a global install), `npx mercury` otherwise (a clone
 * run through npx: a hint naming a command their shell does not have would be the first thing to fail).
 */
export function mercuryCommand(env: NodeJS.ProcessEnv = process.env, program = process.argv[1]): string {
  if (!program) return "npx mercury";
  let self: string;
  try {
    self = realpathSync(program);
  } catch {
    return "npx mercury";
  }
  // The package's `mercury` is dist/mercury.cjs, which runs dist/cli.js: either file is this program.
  const selves = new Set([self]);
  if (basename(self) === "cli.js") selves.add(join(dirname(self), "mercury.cjs"));
  for (const directory of (env.PATH ?? "").split(delimiter)) {
    if (directory === "") continue;
    const candidate = join(directory, "mercury");
    try {
      accessSync(candidate, constants.X_OK);
      // The first `mercury` on the PATH is the one the shell runs: this program or another.
      return selves.has(realpathSync(candidate)) ? "mercury" : "npx mercury";
    } catch {
      // Not in this directory: the shell looks in the next one.
    }
  }
  return "npx mercury";
}

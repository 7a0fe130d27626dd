import { accessSync, constants, realpathSync } from "node:fs";
import { delimiter, join } from "node:path";

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
  for (const directory of (env.PATH ?? "").split(delimiter)) {
    if (directory === "") continue;
    const candidate = join(directory, "mercury");
    try {
      accessSync(candidate, constants.X_OK);
      // The first `mercury` on the PATH is the one the shell runs: this program or another.
      return realpathSync(candidate) === self ? "mercury" : "npx mercury";
    } catch {
      // Not in this directory: the shell looks in the next one.
    }
  }
  return "npx mercury";
}

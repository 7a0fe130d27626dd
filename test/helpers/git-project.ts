import { execFileSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { makeHome } from "./cli.js";

/** A project folder (beside a fresh MERCURY_HOME) holding `files`, committed once as a git repository. */
export function gitProject(files: Record<string, string>): string {
  const { workspace } = makeHome();
  for (const [path, content] of Object.entries(files)) writeFileSync(join(workspace, path), content);
  const git = (...args: string[]) => execFileSync("git", args, { cwd: workspace, stdio: "pipe" });
  git("init", "-q");
  git("-c", "user.email=t@t", "-c", "user.name=t", "add", "-A");
  git("-c", "user.email=t@t", "-c", "user.name=t", "commit", "-q", "-m", "start");
  return workspace;
}

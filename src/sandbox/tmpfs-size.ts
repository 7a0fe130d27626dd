import { spawnSync } from "node:child_process";

/**
 * Whether this bubblewrap takes `--size` for a tmpfs (0.7 and newer). The sandbox's private /tmp,
 * /dev/shm and /run are memory: without a size a command can fill them until the host swaps, past
 * every per-process limit (tmpfs pages are no process's data, and RLIMIT_FSIZE is per file). Asked
 * once per bwrap path; an older bwrap runs without sizes rather than not at all.
 */
const answers = new Map<string, boolean>();

export function bwrapSizesTmpfs(bwrap: string): boolean {
  const known = answers.get(bwrap);
  if (known !== undefined) return known;
  const help = spawnSync(bwrap, ["--help"], { encoding: "utf8", timeout: 5_000 });
  const sizes = `${help.stdout ?? ""}${help.stderr ?? ""}`.includes("--size");
  answers.set(bwrap, sizes);
  return sizes;
}

import { createHash, randomUUID } from "node:crypto";
import type { Stats } from "node:fs";
import { lstat, readdir } from "node:fs/promises";
import { join, relative } from "node:path";
import { type GitContainment, runContainedGit } from "./contained-git.js";
import { skippedDirectories } from "./snapshot.js";

/**
 * Files the change picture does not show — what git ignores (node_modules/.bin, build output), or
 * the folders a snapshot skips — can still decide a check: a test that runs `build/check.js` passes
 * or fails with it. They are not the task's changes, but a verification is evidence only for the
 * files it ran against, so their metadata joins the fingerprint. Metadata, not content: they can be
 * large; ctime and inode change with every write, rename or `touch -d`, and are compared for
 * equality, never order, so a clock set back does not hide a change.
 *
 * Past `maxUnseenFiles` the picture is incomplete: the digest is then unique to this call, so no
 * earlier run counts as evidence for the files now and the check runs again.
 */
export const maxUnseenFiles = 50_000;

export async function gitIgnoredDigest(top: string, containment: GitContainment): Promise<string> {
  const listed = await runContainedGit(["ls-files", "-z", "--others", "--ignored", "--exclude-standard"], {
    top,
    containment,
    timeoutMs: 120_000,
  });
  if (listed.code !== 0) throw new Error(`git ls-files failed: ${listed.stderr.trim()}`);
  return ignoredListingDigest(top, listed.stdout);
}

/** The digest for `git ls-files -z --others --ignored --exclude-standard` output (git-batch.ts runs it). */
export async function ignoredListingDigest(top: string, listing: string): Promise<string> {
  const paths = listing.split("\0").filter((path) => path !== "");
  if (paths.length > maxUnseenFiles) return uncounted(paths.length);
  return digest(top, paths.sort());
}

/** The files under the snapshot's skipped folders (node_modules, dist, target, …) anywhere below `root`. */
export async function skippedFoldersDigest(root: string): Promise<string> {
  const paths: string[] = [];
  const pending: { directory: string; skipped: boolean }[] = [{ directory: root, skipped: false }];
  while (pending.length > 0) {
    const { directory, skipped } = pending.pop() as { directory: string; skipped: boolean };
    const entries = await readdir(directory, { withFileTypes: true }).catch(
      (error: NodeJS.ErrnoException) => {
        if (error.code === "ENOENT") return [];
        // Unreadable: recorded as such, so the folder becoming readable (or not) later differs.
        paths.push(`${relative(root, directory)}/<${error.code ?? "unreadable"}>`);
        return [];
      },
    );
    for (const entry of entries) {
      const full = join(directory, entry.name);
      if (entry.isDirectory()) {
        if (entry.name === ".git" || entry.name === ".hg" || entry.name === ".svn") continue;
        pending.push({ directory: full, skipped: skipped || skippedDirectories.has(entry.name) });
        continue;
      }
      if (skipped) paths.push(relative(root, full));
      if (paths.length > maxUnseenFiles) return uncounted(paths.length);
    }
  }
  return digest(root, paths.sort());
}

async function digest(root: string, paths: string[]): Promise<string> {
  const hash = createHash("sha256");
  for (const path of paths) {
    const info: Stats | null = path.endsWith(">")
      ? null
      : await lstat(join(root, path)).catch((error: NodeJS.ErrnoException) => {
          if (error.code === "ENOENT") return null;
          throw error;
        });
    hash.update(path);
    hash.update(info ? `\0${info.size}:${info.mtimeMs}:${info.ctimeMs}:${info.ino}:${info.mode}\0` : "\0-\0");
  }
  return hash.digest("hex");
}

function uncounted(count: number): string {
  return `uncounted:${count}:${randomUUID()}`;
}

import { existsSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname, relative, resolve } from "node:path";
import { newProgramSettings, withoutProgramSettings } from "./git-config-text.js";
import {
  type GitInventory,
  gitdirTarget,
  reallyInside,
  sameState,
  takeInventory,
  type WatchedEntry,
} from "./git-inventory.js";
import { isInside, realOrResolved } from "./workspace.js";

export { configEntries, newProgramSettings, withoutProgramSettings } from "./git-config-text.js";

/**
 * What git runs later, outside the sandbox. The sandbox keeps `.git/hooks` read-only, but a command
 * approved by allow-all (`--yes`) can still point git at a program through a config
 * (`core.hooksPath`, `core.fsmonitor`, a filter, a pager, an include of another file), at another
 * repository through `commondir` or a `gitdir:` file, plant a repository of its own (a new `.git` or
 * bare layout in a folder the user will `cd` into, or `mv .git .git-old` and a planted copy in its
 * place), or write a hook where the sandbox's read-only bind does not reach (a copied `.git`, a
 * submodule, a `core.hooksPath` folder in the project). The user's next `git status` or commit would
 * run it with all their rights. A read-only config breaks `git remote add` and `push -u`, so instead
 * everything git-inventory.ts lists is compared after each command, and such a change is put back
 * (a moved repository folder is moved back) and reported. A person who approved the exact command
 * keeps its change.
 */
export interface GitGuard {
  /** Puts back what the command changed that git would run; a sentence for the tool result, or null. */
  check(): string | null;
}

interface Hazard {
  path: string;
  /** What was found, for the result (after the relative path). */
  what: string;
  repair(): void;
}

/** A guard over the whole workspace (a repository may appear where there was none). */
export function guardGitState(workspace: string): GitGuard | null {
  const root = realOrResolved(workspace);
  const before = takeInventory(root);
  return {
    check() {
      const notes: string[] = [];
      const rel = (path: string) => relative(root, path) || ".";
      let after = takeInventory(root);
      for (const [path, entry] of before.entries) {
        const moved = movedRepository(before, after, path, entry);
        if (!moved) continue;
        if (!parentInside(path, root) || !parentInside(moved, root)) {
          notes.push(
            `${rel(path)} (moved to ${rel(moved)}; not moved back: a link leads out of the workspace)`,
          );
          continue;
        }
        // A re-initialised repository (`mv .git .git-old && git init`) that plants nothing stays.
        if (
          hazardsOf(before, after, (candidate) => candidate === path || isInside(candidate, path)).length ===
          0
        )
          continue;
        const replacement = existsSync(path) ? freeName(`${path}.replaced-by-command`) : null;
        if (replacement) renameSync(path, replacement);
        renameSync(moved, path);
        notes.push(
          `${rel(path)} (the repository folder had been moved to ${rel(moved)} and replaced${replacement ? `; the replacement is kept as ${rel(replacement)}` : ""})`,
        );
        after = takeInventory(root);
      }
      for (const hazard of hazardsOf(before, after, () => true)) {
        // Mercury writes here outside the sandbox: never through a link out of the workspace.
        if (!parentInside(hazard.path, root)) {
          notes.push(`${rel(hazard.path)} (${hazard.what}; left alone: a link leads out of the workspace)`);
          continue;
        }
        hazard.repair();
        notes.push(`${rel(hazard.path)} (${hazard.what})`);
      }
      if (notes.length === 0) return null;
      return `Mercury put back ${notes.join(" and ")}: git would run what the command set there later, outside the sandbox, with the user's rights. Only the user makes such a change (ask them to run it themselves).`;
    },
  };
}

/** Where a `.git` folder that was at `path` before is now, when the command moved it away. */
function movedRepository(
  before: GitInventory,
  after: GitInventory,
  path: string,
  entry: WatchedEntry,
): string | null {
  if (entry.role !== "dot-git" || entry.state.kind !== "directory") return null;
  if (sameState(entry.state, after.entries.get(path)?.state)) return null;
  const now = after.repositoryIds.get(entry.state.id);
  return now && now !== path && before.entries.has(path) ? now : null;
}

function hazardsOf(before: GitInventory, after: GitInventory, within: (path: string) => boolean): Hazard[] {
  const hazards: Hazard[] = [];
  const repositoriesBefore = new Set(before.repositoryIds.values());
  for (const [path, entry] of after.entries) {
    if (!within(path)) continue;
    const previous = before.entries.get(path)?.state;
    const state = entry.state;
    if (sameState(previous, state)) {
      // The same text, but a link on its way now leads out of the workspace: git there would take
      // another repository's config, whose relative hooksPath runs the project's own scripts.
      const was = before.leadsTo.get(path);
      const now = after.leadsTo.get(path);
      if (
        was !== undefined &&
        now !== undefined &&
        reallyInside(was, before.workspace) &&
        !reallyInside(now, after.workspace)
      )
        hazards.push({
          path,
          what: "now leads git out of the workspace through a link",
          repair: () => setAside(path),
        });
      continue;
    }
    // What was there can be put back only when it was read (an unreadable one is removed instead).
    const previousBytes = previous?.kind === "file" && !previous.unreadable ? previous : null;
    const restore = () => putBack(path, previousBytes);
    if (entry.role === "dot-git") {
      if (state.kind === "link")
        hazards.push({ path, what: "a link git would follow to another repository", repair: restore });
      if (state.kind === "file") {
        const target = gitdirTarget(path, state.bytes.toString("utf8"));
        if (!target || !isInside(realOrResolved(target), after.workspace))
          hazards.push({ path, what: "points git at a folder outside the workspace", repair: restore });
      }
    } else if (entry.role === "config") {
      if (state.kind === "link") hazards.push({ path, what: "a config replaced by a link", repair: restore });
      if (state.kind !== "file") continue;
      const text = state.bytes.toString("utf8");
      const added = newProgramSettings(previousBytes?.bytes.toString("utf8") ?? "", text);
      if (added.length === 0) continue;
      const names = added.map((name) => name.replace(/^\?/, "")).join(", ");
      hazards.push({
        path,
        what: previousBytes ? names : `${names}; removed from a config the command created`,
        repair: previousBytes ? restore : () => writeFileSync(path, withoutProgramSettings(text)),
      });
    } else if (entry.role === "commondir") {
      // A new worktree's commondir inside the workspace is git's own; in a repository that was
      // there before, any change points it at another repository's config and hooks.
      const target = state.kind === "file" ? state.bytes.toString("utf8").trim() : "";
      const resolved = target === "" ? "" : realOrResolved(resolve(dirname(path), target));
      const known = repositoriesBefore.has(dirname(path));
      if (known || state.kind !== "file" || !isInside(resolved, after.workspace))
        hazards.push({ path, what: "points git at another repository's config and hooks", repair: restore });
    } else if (entry.role === "hook" && (state.kind === "file" || state.kind === "link")) {
      hazards.push({ path, what: "a hook git runs at the next commit or checkout", repair: restore });
    } else if (entry.role === "hooks-folder" && state.kind === "link") {
      hazards.push({ path, what: "a hooks folder replaced by a link", repair: restore });
    }
  }
  return hazards;
}

/** Replaces whatever is at `path` (a file, a link the command made) with what was there, or removes it. */
function putBack(path: string, previous: { bytes: Buffer; mode: number } | null): void {
  rmSync(path, { force: true });
  if (previous) writeFileSync(path, previous.bytes, { mode: previous.mode });
}

/**
 * The folder holding `path`, links followed, is the workspace or inside it: a repair removes or
 * renames the entry itself (a link is replaced, never followed), but never in a folder reached
 * through a link that leads out of the workspace.
 */
function parentInside(path: string, root: string): boolean {
  const parent = realOrResolved(dirname(path));
  return parent === root || isInside(parent, root);
}

/** Renames `path` aside (its text is fine; what it leads to is not), so git no longer follows it. */
function setAside(path: string): void {
  renameSync(path, freeName(`${path}.replaced-by-command`));
}

function freeName(base: string): string {
  let candidate = base;
  for (let index = 2; existsSync(candidate); index++) candidate = `${base}-${index}`;
  return candidate;
}

import { type Dirent, existsSync, readdirSync, realpathSync, statSync } from "node:fs";
import { join } from "node:path";
import { parseSkillFile } from "./parse.js";
import { type Skill, type SkillProblem, type SkillSource, skillSourceOrder } from "./types.js";

export interface SkillRoot {
  source: SkillSource;
  directory: string;
}

export interface Discovery {
  /** The winning skill for each name (disabled ones included; callers filter). */
  skills: Skill[];
  problems: SkillProblem[];
  /** Name clashes and other findings that did not stop anything from loading. */
  warnings: string[];
}

/** How deep below a root a SKILL.md is looked for (root/a/b/c/SKILL.md at most). */
export const maxScanDepth = 4;
/** Folders visited per root at most, so a huge tree cannot stall a prompt build. */
export const maxScanDirectories = 2000;
const skippedFolders = new Set([".git", "node_modules"]);

/** Finds the SKILL.md files under one root, not descending into a skill's own folders. */
export function findSkillFiles(root: string): { files: string[]; truncated: boolean } {
  const files: string[] = [];
  let visited = 0;
  let truncated = false;
  const walk = (directory: string, depth: number) => {
    if (visited >= maxScanDirectories) {
      truncated = true;
      return;
    }
    visited += 1;
    let entries: Dirent[];
    try {
      entries = readdirSync(directory, { withFileTypes: true });
    } catch {
      return;
    }
    if (depth > 0 && entries.some((entry) => entry.name === "SKILL.md" && entry.isFile())) {
      files.push(join(directory, "SKILL.md"));
      return;
    }
    if (depth >= maxScanDepth) return;
    for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
      // Symbolic links to folders are followed only at the first level (a linked skill), never deeper.
      const isFolder =
        entry.isDirectory() ||
        (depth === 0 && entry.isSymbolicLink() && isDirectory(join(directory, entry.name)));
      if (!isFolder || skippedFolders.has(entry.name)) continue;
      walk(join(directory, entry.name), depth + 1);
    }
  };
  if (isDirectory(root)) walk(root, 0);
  return { files, truncated };
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/**
 * Discovers skills in the given roots. On a name clash the more specific source wins
 * (`skillSourceOrder`) and the loser is reported as a warning; within one source the first found wins.
 */
export function discoverSkills(
  roots: readonly SkillRoot[],
  /** Why a found SKILL.md must not load (e.g. not what the owner trusted), or null to load it. */
  refuse: (root: SkillRoot, file: string) => string | null = () => null,
): Discovery {
  const ordered = [...roots].sort(
    (a, b) => skillSourceOrder.indexOf(a.source) - skillSourceOrder.indexOf(b.source),
  );
  const byName = new Map<string, Skill>();
  const problems: SkillProblem[] = [];
  const warnings: string[] = [];
  for (const root of ordered) {
    if (!existsSync(root.directory)) continue;
    const { files, truncated } = findSkillFiles(root.directory);
    if (truncated) {
      warnings.push(`${root.directory}: more than ${maxScanDirectories} folders; the scan stopped early`);
    }
    for (const file of files) {
      const refused = refuse(root, file);
      if (refused !== null) {
        problems.push({ file, source: root.source, reason: refused });
        continue;
      }
      const parsed = parseSkillFile(file, root.source);
      if (!parsed.ok) {
        problems.push(parsed.problem);
        continue;
      }
      const skill = { ...parsed.skill, directory: realOr(parsed.skill.directory) };
      const existing = byName.get(skill.name);
      if (existing) {
        warnings.push(
          `skill "${skill.name}" in ${skill.directory} is shadowed by the ${existing.source} one in ${existing.directory}`,
        );
        continue;
      }
      byName.set(skill.name, skill);
    }
  }
  const skills = [...byName.values()].sort((a, b) => a.name.localeCompare(b.name));
  return { skills, problems, warnings };
}

function realOr(path: string): string {
  try {
    return realpathSync.native(path);
  } catch {
    return path;
  }
}

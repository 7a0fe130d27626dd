import { createHash } from "node:crypto";
import { type Dirent, lstatSync, readdirSync, readFileSync, readlinkSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { findSkillFiles } from "./discover.js";

/**
 * Pins for a trusted workspace's `.agents/skills`: what each skill folder held when the owner ran
 * `mercury skills trust`. The workspace is writable by the agent (its tools and its sandboxed
 * commands), so a skill a task wrote or changed there would otherwise be read by the next task as
 * if the owner had trusted it. A skill whose folder no longer matches its pin is not loaded until
 * the owner trusts the workspace again.
 */

/** Bytes read per skill folder for its fingerprint; beyond it, files count by size and change time. */
const maxFingerprintBytes = 8 * 1024 * 1024;
/** Entries looked at per skill folder; a folder with more is pinned by the count only past it. */
const maxFingerprintEntries = 2000;

/** Each skill folder under `root`, keyed by its path relative to `root` (as discovery finds it). */
export function workspaceSkillPins(root: string): Record<string, string> {
  const pins: Record<string, string> = {};
  for (const file of findSkillFiles(root).files) {
    const folder = dirname(file);
    pins[skillPinKey(root, file)] = skillFolderFingerprint(folder);
  }
  return pins;
}

export function skillPinKey(root: string, skillFile: string): string {
  return relative(root, dirname(skillFile));
}

/**
 * A hash of the folder's tree: names, kinds, link targets and file contents. Links are recorded,
 * never followed (the folder itself may be a link, as discovery allows).
 */
export function skillFolderFingerprint(folder: string): string {
  const hash = createHash("sha256");
  let bytes = 0;
  let entries = 0;
  const walk = (directory: string, prefix: string) => {
    let children: Dirent[];
    try {
      children = readdirSync(directory, { withFileTypes: true });
    } catch (error) {
      hash.update(`unreadable ${prefix}: ${error instanceof Error ? error.message : String(error)}\n`);
      return;
    }
    for (const child of children.sort((a, b) => a.name.localeCompare(b.name))) {
      entries += 1;
      if (entries > maxFingerprintEntries) {
        hash.update(`more entries\n`);
        return;
      }
      const path = join(directory, child.name);
      const name = `${prefix}${child.name}`;
      if (child.isSymbolicLink()) hash.update(`link ${name} -> ${readlinkSync(path)}\n`);
      else if (child.isDirectory()) {
        hash.update(`dir ${name}\n`);
        walk(path, `${name}/`);
      } else if (child.isFile()) {
        const stat = lstatSync(path);
        if (bytes + stat.size <= maxFingerprintBytes) {
          bytes += stat.size;
          hash.update(`file ${name} ${stat.size}\n`);
          hash.update(readFileSync(path));
        } else hash.update(`file ${name} ${stat.size} ${stat.mtimeMs} ${stat.ctimeMs}\n`);
      } else hash.update(`other ${name}\n`);
    }
  };
  walk(folder, "");
  return hash.digest("hex");
}

/**
 * Why a workspace skill is not loaded, or null when it matches what the owner trusted. `pins` is
 * null for a workspace trusted before pins were kept: nothing in it is known to be the owner's.
 */
export function unpinnedReason(
  pins: Record<string, string> | null,
  root: string,
  skillFile: string,
  workspace: string,
): string | null {
  const again = `review it, then run \`mercury skills trust ${workspace}\` to accept it`;
  if (pins === null) return `${workspace} was trusted before Mercury recorded what its skills held; ${again}`;
  const pinned = pins[skillPinKey(root, skillFile)];
  if (pinned === undefined)
    return `added after you trusted ${workspace} (a task may have written it); ${again}`;
  if (pinned !== skillFolderFingerprint(dirname(skillFile)))
    return `changed after you trusted ${workspace} (a task may have written it); ${again}`;
  return null;
}

/**
 * Why a skill in `$MERCURY_HOME/skills` or `~/.agents/skills` is not loaded, or null. A skill first
 * seen is pinned as found (putting a skill there is the person's act: the sandbox cannot write
 * either folder, and Mercury's own writes pin what they write); one that changed after its pin
 * needs the person again. `pins` is updated in place with first sightings; returns whether it did.
 */
export function homeUnpinnedReason(
  pins: Record<string, string>,
  root: string,
  skillFile: string,
): { reason: string | null; added: boolean } {
  const key = skillPinKey(root, skillFile);
  const now = skillFolderFingerprint(dirname(skillFile));
  const pinned = pins[key];
  if (pinned === undefined) {
    pins[key] = now;
    return { reason: null, added: true };
  }
  if (pinned === now) return { reason: null, added: false };
  return {
    reason: `changed on disk after it was approved (something other than Mercury wrote it); review it, then run \`mercury skills approve ${key}\` to accept it`,
    added: false,
  };
}

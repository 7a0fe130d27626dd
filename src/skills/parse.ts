import { closeSync, constants, fstatSync, openSync, readSync } from "node:fs";
import { basename, dirname } from "node:path";
import { z } from "zod";
import { yamlLibrary } from "../config/yaml.js";
import { isValidSkillName, type Skill, type SkillProblem, type SkillSource } from "./types.js";

/** A SKILL.md larger than this is refused: a skill is instructions, not a data set. */
export const maxSkillFileBytes = 256 * 1024;

const frontmatterSchema = z.looseObject({
  name: z.unknown().optional(),
  description: z.unknown().optional(),
  license: z.unknown().optional(),
  compatibility: z.unknown().optional(),
  metadata: z.unknown().optional(),
  "allowed-tools": z.unknown().optional(),
});

export type ParsedSkill = { ok: true; skill: Skill } | { ok: false; problem: SkillProblem };

/** Splits `---\n yaml \n---\n body`; null when the file does not start with a frontmatter block. */
export function splitFrontmatter(text: string): { yaml: string; body: string } | null {
  const normalized = text.replace(/^\uFEFF/, "").replace(/\r\n/g, "\n");
  if (!normalized.startsWith("---\n")) return null;
  const end = normalized.indexOf("\n---", 4);
  if (end === -1) return null;
  const afterMarker = normalized.indexOf("\n", end + 4);
  const rest = normalized.slice(end + 4, afterMarker === -1 ? undefined : afterMarker);
  if (rest.trim() !== "") return null;
  return {
    yaml: normalized.slice(4, end),
    body: afterMarker === -1 ? "" : normalized.slice(afterMarker + 1),
  };
}

/**
 * Parses one SKILL.md against the Agent Skills specification, leniently where it says so: a bad
 * or mismatched name is a warning (the folder name is used when the declared one is unusable), a
 * missing description or unparsable YAML skips the skill with the reason.
 */
export function parseSkillText(
  text: string,
  file: string,
  directory: string,
  source: SkillSource,
): ParsedSkill {
  const fail = (reason: string): ParsedSkill => ({ ok: false, problem: { file, source, reason } });
  const parts = splitFrontmatter(text);
  if (!parts)
    return fail("no YAML frontmatter (the file must start with a --- block holding name and description)");
  let data: unknown;
  try {
    data = yamlLibrary().parse(parts.yaml);
  } catch (error) {
    return fail(
      `unparsable YAML frontmatter: ${error instanceof Error ? error.message.split("\n")[0] : String(error)}`,
    );
  }
  const parsed = frontmatterSchema.safeParse(data ?? {});
  if (!parsed.success) return fail("the frontmatter is not a YAML mapping of keys to values");
  const front = parsed.data;
  const warnings: string[] = [];

  if (typeof front.description !== "string" || front.description.trim() === "") {
    return fail("no description (required: 1–1024 characters saying what the skill does and when to use it)");
  }
  let description = front.description.trim();
  if (description.length > 1024) {
    warnings.push(`description is ${description.length} characters; the limit is 1024 (cut)`);
    description = description.slice(0, 1024);
  }

  const folder = basename(directory);
  const declared = typeof front.name === "string" ? front.name.trim() : "";
  let name: string;
  if (declared === "") {
    if (!isValidSkillName(folder))
      return fail(`no name, and the folder name "${folder}" is not a valid skill name`);
    warnings.push(`no name in the frontmatter; using the folder name "${folder}"`);
    name = folder;
  } else if (!isValidSkillName(declared)) {
    if (!isValidSkillName(folder)) {
      return fail(
        `name "${declared}" is invalid (1–64 of a-z, 0-9 and single hyphens) and so is the folder name`,
      );
    }
    warnings.push(
      `name "${declared}" is invalid (1–64 of a-z, 0-9 and single hyphens); using the folder name "${folder}"`,
    );
    name = folder;
  } else {
    name = declared;
    if (declared !== folder) warnings.push(`name "${declared}" differs from its folder "${folder}"`);
  }

  const optionalString = (key: "license" | "compatibility", limit: number): string | undefined => {
    const value = front[key];
    if (value === undefined || value === null) return undefined;
    if (typeof value !== "string") {
      warnings.push(`${key} is not a string; ignored`);
      return undefined;
    }
    if (value.length > limit) {
      warnings.push(`${key} is longer than ${limit} characters; cut`);
      return value.slice(0, limit);
    }
    return value;
  };
  const metadata: Record<string, string> = {};
  if (front.metadata !== undefined && front.metadata !== null) {
    if (typeof front.metadata === "object" && !Array.isArray(front.metadata)) {
      for (const [key, value] of Object.entries(front.metadata as Record<string, unknown>)) {
        if (typeof value === "string" || typeof value === "number" || typeof value === "boolean") {
          metadata[key] = String(value);
        } else warnings.push(`metadata.${key} is not a plain value; ignored`);
      }
    } else warnings.push("metadata is not a mapping; ignored");
  }
  let allowedTools: string[] | null = null;
  const rawAllowed = front["allowed-tools"];
  if (typeof rawAllowed === "string") allowedTools = rawAllowed.split(/\s+/).filter((token) => token !== "");
  else if (Array.isArray(rawAllowed) && rawAllowed.every((token) => typeof token === "string")) {
    allowedTools = rawAllowed.map((token) => token.trim()).filter((token) => token !== "");
  } else if (rawAllowed !== undefined && rawAllowed !== null) {
    // Fails closed: the author asked to narrow, so an unreadable list narrows to nothing rather
    // than leaving every tool of the session available.
    allowedTools = [];
    warnings.push(
      "allowed-tools is neither a space-separated string nor a list of strings; while active the skill allows no tools",
    );
  }

  const skill: Skill = {
    name,
    description,
    metadata,
    allowedTools,
    body: parts.body.trim(),
    directory,
    file,
    source,
    warnings,
  };
  const license = optionalString("license", 200);
  if (license !== undefined) skill.license = license;
  const compatibility = optionalString("compatibility", 500);
  if (compatibility !== undefined) skill.compatibility = compatibility;
  return { ok: true, skill };
}

export function parseSkillFile(file: string, source: SkillSource): ParsedSkill {
  const fail = (reason: string): ParsedSkill => ({ ok: false, problem: { file, source, reason } });
  let read: { buffer: Buffer; size: number };
  try {
    read = readBounded(file);
  } catch (error) {
    return fail(`cannot read: ${String(error)}`);
  }
  // The size is known before anything is read: a huge SKILL.md never fills memory.
  if (read.size > maxSkillFileBytes)
    return fail(
      `SKILL.md is ${read.size} bytes; the limit is ${maxSkillFileBytes} (a skill is instructions)`,
    );
  if (read.buffer.includes(0))
    return fail("SKILL.md is binary (it holds NUL bytes); a skill is Markdown text");
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(read.buffer);
  } catch {
    return fail("SKILL.md is not UTF-8 text");
  }
  return parseSkillText(text, file, dirname(file), source);
}

/** The file's size, and at most the limit of its bytes, from a regular file (a FIFO never blocks). */
function readBounded(file: string): { buffer: Buffer; size: number } {
  const descriptor = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    const stat = fstatSync(descriptor);
    if (!stat.isFile()) throw new Error("not a regular file");
    const buffer = Buffer.alloc(Math.min(stat.size, maxSkillFileBytes));
    let filled = 0;
    while (filled < buffer.length) {
      const count = readSync(descriptor, buffer, filled, buffer.length - filled, filled);
      if (count === 0) break;
      filled += count;
    }
    return { buffer: buffer.subarray(0, filled), size: stat.size };
  } finally {
    closeSync(descriptor);
  }
}

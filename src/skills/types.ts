/** Where a skill was found; also its precedence (earlier in `skillSourceOrder` wins a name clash). */
export type SkillSource = "workspace" | "mercury" | "user";

/** Most specific first: a trusted workspace's skill beats Mercury's own, which beats ~/.agents. */
export const skillSourceOrder: readonly SkillSource[] = ["workspace", "mercury", "user"];

export interface Skill {
  /** The identifier the model and the user use; validated against `skillNamePattern`. */
  name: string;
  description: string;
  license?: string;
  compatibility?: string;
  metadata: Record<string, string>;
  /** Raw `allowed-tools` tokens as written; see allowed-tools.ts for what they narrow to. */
  allowedTools: string[] | null;
  /** The Markdown after the frontmatter. */
  body: string;
  /** The skill's folder (absolute, real path). */
  directory: string;
  /** The SKILL.md file (absolute). */
  file: string;
  source: SkillSource;
  /** Lenient-validation findings that did not stop the skill from loading. */
  warnings: string[];
}

/** A SKILL.md that could not be loaded, with the reason shown in `mercury skills list` and doctor. */
export interface SkillProblem {
  file: string;
  source: SkillSource;
  reason: string;
}

/** Agent Skills spec: lowercase letters, digits and single hyphens, not at either end; 1–64 chars. */
export const skillNamePattern = /^[a-z0-9](?:[a-z0-9]|-(?=[a-z0-9])){0,63}$/;

export function isValidSkillName(name: string): boolean {
  return name.length >= 1 && name.length <= 64 && skillNamePattern.test(name);
}

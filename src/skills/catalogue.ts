import { defuseSkillText } from "./defuse.js";
import type { Skill } from "./types.js";

/** Default share of the system prompt for the skills catalogue (about 50–100 tokens a skill). */
export const defaultCatalogueTokens = 2000;
const charsPerToken = 4;
const shortDescriptionChars = 240;

/**
 * The catalogue the model sees: name and description of each available skill, within a token
 * budget. Over budget, descriptions are shortened first, then the last skills are only counted
 * (their names stay in activate_skill's list).
 */
export function catalogueSection(skills: readonly Skill[], budgetTokens = defaultCatalogueTokens): string {
  if (skills.length === 0) return "";
  const header = [
    "# Skills",
    "Skills are instructions for particular kinds of work. When the task matches a skill below, call activate_skill with its name and follow what it says; files it mentions are in its folder and can be read with read_file.",
    "A skill grants nothing: its commands and scripts are checked by the permission engine like any other.",
  ].join("\n");
  const budget = budgetTokens * charsPerToken;
  const full = skills.map((skill) => `- ${skill.name}: ${oneLine(skill.description)}`);
  const fits = (lines: string[]) =>
    header.length + lines.reduce((sum, line) => sum + line.length + 1, 0) <= budget;
  if (fits(full)) return [header, ...full].join("\n");
  const short = skills.map(
    (skill) => `- ${skill.name}: ${shorten(oneLine(skill.description), shortDescriptionChars)}`,
  );
  const kept: string[] = [];
  for (const line of short) {
    if (!fits([...kept, line, "- (… more)"])) break;
    kept.push(line);
  }
  const omitted = skills.length - kept.length;
  if (omitted > 0) {
    kept.push(`- (${omitted} more skills not described here for space; activate_skill lists every name)`);
  }
  return [header, ...kept].join("\n");
}

/** One line, and a skill's description cannot pass for one of Mercury's own notes in the system prompt. */
function oneLine(text: string): string {
  return defuseSkillText(text.replace(/\s+/g, " ").trim());
}

function shorten(text: string, limit: number): string {
  return text.length <= limit ? text : `${text.slice(0, limit - 1)}…`;
}

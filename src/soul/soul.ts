import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type SoulFileName, soulFileNames, soulTemplates } from "./templates.js";

/** Creates the missing soul files from templates; existing files are left exactly as they are. */
export function ensureSoulFiles(soulDirectory: string): SoulFileName[] {
  mkdirSync(soulDirectory, { recursive: true });
  const created: SoulFileName[] = [];
  for (const name of soulFileNames) {
    const path = join(soulDirectory, name);
    if (existsSync(path)) continue;
    // "wx" fails if another process created it meanwhile: we never overwrite.
    try {
      writeFileSync(path, soulTemplates[name], { flag: "wx" });
      created.push(name);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
  }
  return created;
}

export interface Soul {
  soul: string;
  persona: string;
  taste: string;
  heartbeat: string;
}

/** Read fresh on every turn, so an edit takes effect on the next message without a restart. */
export function readSoul(soulDirectory: string): Soul {
  ensureSoulFiles(soulDirectory);
  const read = (name: SoulFileName) => readFileSync(join(soulDirectory, name), "utf8").trim();
  return {
    soul: read("soul.md"),
    persona: read("persona.md"),
    taste: read("taste.md"),
    heartbeat: read("heartbeat.md"),
  };
}

export interface PromptContext {
  cwd: string;
  platform: string;
  /** Day granularity only: a per-minute timestamp would defeat prompt caching. */
  date: string;
  memorySection?: string;
  /** The skills catalogue (src/skills/catalogue.ts); omitted when empty. */
  skillsSection?: string;
  toolNames: string[];
}

export function assembleSystemPrompt(soul: Soul, context: PromptContext): string {
  const sections = [
    soul.soul,
    soul.persona,
    soul.taste,
    [
      "# Working rules",
      "- Use tools to act; describe what you did only after the tool results show it.",
      "- A tool result that starts with an error means the action did not happen.",
      "- When you changed files, run a verification command (tests, build or typecheck) before you finish.",
      context.toolNames.length > 0
        ? `- Tools available: ${context.toolNames.join(", ")}.`
        : "- No tools are available.",
    ].join("\n"),
    [
      "# Environment",
      `- Working directory: ${context.cwd}`,
      `- Platform: ${context.platform}`,
      `- Date: ${context.date}`,
    ].join("\n"),
  ];
  if (context.skillsSection && context.skillsSection.trim() !== "")
    sections.push(context.skillsSection.trim());
  if (context.memorySection && context.memorySection.trim() !== "")
    sections.push(context.memorySection.trim());
  return sections.join("\n\n");
}

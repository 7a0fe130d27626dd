import { z } from "zod";
import type { ToolDefinition } from "../tools/types.js";
import { isValidSkillName } from "./types.js";

export interface SkillProposal {
  name: string;
  description: string;
  instructions: string;
  reason: string;
}

const inputSchema = z.object({
  name: z
    .string()
    .describe("Skill name: 1–64 of a-z, 0-9 and single hyphens. An existing name proposes an edit."),
  description: z
    .string()
    .min(1)
    .max(1024)
    .describe("What the skill does and when to use it (1–1024 characters)."),
  instructions: z
    .string()
    .min(1)
    .max(20_000)
    .describe("The Markdown body: the steps that worked, what to check."),
  reason: z
    .string()
    .min(1)
    .max(2000)
    .describe("Why this is worth keeping: what this task did and how it was verified."),
});

/**
 * `propose_skill`: the learning loop's only entry. It records a proposal for this task; after the
 * task, the proposal becomes a draft for the owner's review only if the task ended completed with a
 * passing verification. Nothing is written where skills are loaded from until the owner approves.
 */
export function createProposeSkillTool(
  record: (
    taskId: string,
    userKey: string,
    proposal: SkillProposal,
  ) => string | null | Promise<string | null>,
): ToolDefinition<SkillProposal> {
  return {
    name: "propose_skill",
    description:
      "Propose saving what worked in this task as a reusable skill (or an edit to an existing one). It becomes a draft " +
      "for the owner to review only if the task ends completed with a passing verification; it is never used before the owner approves.",
    inputSchema,
    mutating: false,
    async execute(input, context) {
      if (!isValidSkillName(input.name)) {
        return {
          ok: false,
          error: `"${input.name}" is not a valid skill name: use 1–64 of a-z, 0-9 and single hyphens (e.g. "release-checklist").`,
        };
      }
      const refusal = await record(context.taskId, context.userKey, input);
      if (refusal !== null) return { ok: false, error: refusal };
      return {
        ok: true,
        output: `Proposal for skill "${input.name}" recorded. It becomes a draft for the owner's review only if this task ends completed with a passing verification command.`,
      };
    },
  };
}

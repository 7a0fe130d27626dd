import { z } from "zod";
import { cappedImportance, isSubstantialQuote } from "../memory/extraction/attribution.js";
import type { MemoryService } from "../memory/service.js";
import { importanceSchema, memoryKindSchema } from "../memory/store/schemas.js";
import type { ToolDefinition } from "./types.js";

const inputSchema = z.strictObject({
  text: z.string().trim().min(3).max(500).describe("One self-contained sentence about the person."),
  kind: memoryKindSchema,
  importance: importanceSchema,
  sourceQuote: z
    .string()
    .trim()
    .min(3)
    .max(1000)
    .optional()
    .describe("The person's exact words from this conversation that this rests on, if they said it."),
});

export type MemorySaveInput = z.infer<typeof inputSchema>;

/**
 * Saves a memory for the person who owns the task. The evidence is decided here, not by the model:
 * "user-stated" only when the quote is found in the person's latest messages of this session,
 * otherwise "inferred". The store then confirms, supersedes or flags a conflict as usual.
 */
export function createMemorySaveTool(service: MemoryService): ToolDefinition<MemorySaveInput> {
  return {
    name: "memory_save",
    description:
      "Save something worth remembering about the person for future conversations (who they are, preferences, " +
      "goals, decisions, constraints, relationships). Give their exact words as sourceQuote when they said it. " +
      "Returns the receipt: Remembered / Confirmed / Updated.",
    inputSchema,
    mutating: false,
    async execute(input, context) {
      if (context.signal.aborted) return { ok: false, error: "Cancelled: the task was aborted." };
      const substantial =
        input.sourceQuote !== undefined && isSubstantialQuote(input.sourceQuote, input.text);
      const stated =
        input.sourceQuote !== undefined &&
        substantial &&
        service.userSaidRecently({
          sessionId: context.sessionId,
          userKey: context.userKey,
          quote: input.sourceQuote,
          factText: input.text,
        });
      const outcome = await service.remember(
        {
          userKey: context.userKey,
          text: input.text,
          kind: input.kind,
          importance: cappedImportance(
            input.importance,
            stated ? "user-stated" : "inferred",
            input.sourceQuote ?? null,
          ),
          evidence: stated ? "user-stated" : "inferred",
          sessionId: context.sessionId,
          quote: input.sourceQuote ?? null,
        },
        context.signal,
      );
      const evidence = stated
        ? "user-stated (quote found in their message)"
        : input.sourceQuote === undefined
          ? "inferred (no quote given)"
          : substantial
            ? "inferred (the quote is not their own plain claim of this in their recent messages)"
            : "inferred (the quote is too short or does not carry the fact's words)";
      const summary: Record<typeof outcome.action, string> = {
        created: `Remembered #${outcome.memory.id}: ${outcome.memory.text}`,
        confirmed: `Confirmed #${outcome.memory.id}: ${outcome.memory.text}`,
        superseded: `Updated #${outcome.memory.id}: ${outcome.memory.text}`,
        "kept-existing": `Not changed: #${outcome.memory.id} "${outcome.memory.text}" has stronger evidence`,
        conflict: `Remembered #${outcome.memory.id}, but it conflicts with another memory; the user can settle it`,
      };
      return { ok: true, output: `${summary[outcome.action]} [evidence: ${evidence}]` };
    },
  };
}

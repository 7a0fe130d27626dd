import { z } from "zod";
import type { MemoryService } from "../memory/service.js";
import type { ToolDefinition } from "./types.js";

export const MEMORY_SEARCH_MAX = 20;

const inputSchema = z.strictObject({
  query: z.string().trim().min(1).max(500).describe("What to look for, in plain words."),
  limit: z.number().int().min(1).max(MEMORY_SEARCH_MAX).optional().describe("How many memories (default 8)."),
  includeConversations: z
    .boolean()
    .optional()
    .describe("Also search past conversation turns (the episodic archive)."),
});

export type MemorySearchInput = z.infer<typeof inputSchema>;

/** Searches the memories of the person who owns the task — never anyone else's. */
export function createMemorySearchTool(service: MemoryService): ToolDefinition<MemorySearchInput> {
  return {
    name: "memory_search",
    description:
      `Search your long-term memory about the person you are talking to. Returns at most ${MEMORY_SEARCH_MAX} ` +
      "memories (id, kind, text, evidence, confidence, tier); with includeConversations, also matching past " +
      "conversation turns with their session and time.",
    inputSchema,
    mutating: false,
    async execute(input, context) {
      if (context.signal.aborted) return { ok: false, error: "Cancelled: the task was aborted." };
      const results = await service.search({
        userKey: context.userKey,
        query: input.query,
        limit: input.limit ?? 8,
      });
      service.markUsed(results.map((result) => result.memory.id));
      const lines = results.map(
        ({ memory }) =>
          `#${memory.id} [${memory.kind}] ${memory.text} (${memory.evidence}, confidence ${memory.confidence.toFixed(2)}, ${memory.tier})`,
      );
      if (input.includeConversations) {
        const episodes = await service.searchEpisodes({
          userKey: context.userKey,
          query: input.query,
          limit: input.limit ?? 8,
        });
        lines.push(
          ...episodes.map(
            ({ episode }) =>
              `conversation ${episode.sessionId} ${episode.createdAt} ${episode.role}: ${episode.text.slice(0, 400)}`,
          ),
        );
      }
      return {
        ok: true,
        output: lines.length === 0 ? `No memories match "${input.query}".` : lines.join("\n"),
      };
    },
  };
}

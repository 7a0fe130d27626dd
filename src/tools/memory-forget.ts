import { z } from "zod";
import { forgetLeftovers } from "../memory/forget-notice.js";
import type { MemoryService } from "../memory/service.js";
import { MemoryNotFoundError } from "../memory/store/memory-repo.js";
import type { ToolDefinition } from "./types.js";

const inputSchema = z.strictObject({
  memoryId: z.number().int().positive().describe("The #id from memory_search."),
});

export type MemoryForgetInput = z.infer<typeof inputSchema>;

export const FORGET_CHOICES = ["Forget it", "Keep it"] as const;
const CONSENT = new Set(["forget it", "forget", "yes", "y"]);

/**
 * Deletes a memory for good — only after the person says so. Without a way to ask (askUser
 * absent) it refuses: the model can never delete on its own.
 */
export function createMemoryForgetTool(service: MemoryService): ToolDefinition<MemoryForgetInput> {
  return {
    name: "memory_forget",
    description:
      "Permanently delete one memory (by #id from memory_search). The person is asked to confirm first; " +
      "it is removed with its history and can never come back.",
    inputSchema,
    mutating: false,
    async execute(input, context) {
      if (!context.askUser) {
        return {
          ok: false,
          error:
            "Refused: deleting a memory needs the person's confirmation and this channel cannot ask. Tell them to run `mercury memory forget <id>`.",
        };
      }
      let memory: ReturnType<MemoryService["show"]>;
      try {
        memory = service.show(input.memoryId, context.userKey);
      } catch (error) {
        if (error instanceof MemoryNotFoundError) return { ok: false, error: error.message };
        throw error;
      }
      const answer = await context.askUser(`Forget memory #${memory.id} for good: "${memory.text}"?`, [
        ...FORGET_CHOICES,
      ]);
      if (context.signal.aborted) return { ok: false, error: "Cancelled: the task was aborted." };
      if (!CONSENT.has(answer.trim().toLowerCase())) {
        return {
          ok: true,
          output: `Kept memory #${memory.id}: the person did not confirm (answered "${answer}").`,
        };
      }
      const result = service.forget(memory.id, context.userKey);
      // The person must hear what is left (their own workspace files, copies Mercury cannot rewrite):
      // "deleted" alone would promise more than was done.
      const leftovers = forgetLeftovers(result);
      return {
        ok: true,
        output: [`Forgotten: memory #${memory.id} and its history were deleted.`, ...leftovers].join("\n"),
      };
    },
  };
}

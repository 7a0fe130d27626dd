import { z } from "zod";
import type { PlanStore } from "./plan-store.js";
import type { ToolDefinition } from "./types.js";

export const PLAN_MAX_ITEMS = 50;

const inputSchema = z.object({
  items: z
    .array(
      z.object({
        text: z.string().min(1).max(500).describe("One step, short."),
        done: z.boolean().describe("True once the step is finished."),
      }),
    )
    .max(PLAN_MAX_ITEMS)
    .describe("The complete checklist, in order; replaces the previous one."),
});

export type UpdatePlanInput = z.infer<typeof inputSchema>;

export function createUpdatePlanTool(store: PlanStore): ToolDefinition<UpdatePlanInput> {
  return {
    name: "update_plan",
    description:
      `Set this task's checklist (at most ${PLAN_MAX_ITEMS} items), shown live to the user. Send the whole list ` +
      "each time, marking finished steps done. Replies with the items still open.",
    inputSchema,
    mutating: false,
    async execute(input, context) {
      if (context.signal.aborted) return { ok: false, error: "Cancelled: the task was aborted." };
      const texts = input.items.map((item) => item.text.trim());
      const duplicate = texts.find((text, i) => texts.indexOf(text) !== i);
      if (duplicate !== undefined) {
        return { ok: false, error: `The plan lists "${duplicate}" twice; each step must be distinct.` };
      }
      store.set(
        context.taskId,
        input.items.map((item) => ({ text: item.text.trim(), done: item.done })),
      );
      const open = store.openItems(context.taskId);
      const done = input.items.length - open.length;
      const summary = `Plan updated: ${done} of ${input.items.length} done.`;
      return {
        ok: true,
        output:
          open.length === 0
            ? `${summary} No open items.`
            : `${summary} Open:\n${open.map((i) => `- ${i.text}`).join("\n")}`,
      };
    },
  };
}

import { z } from "zod";
import type { ToolDefinition } from "./types.js";

const inputSchema = z.object({
  question: z.string().min(1).describe("One clear question for the user."),
  choices: z
    .array(z.string().min(1))
    .min(2)
    .max(10)
    .optional()
    .describe("Optional answers to pick from (2-10)."),
});

export type AskUserInput = z.infer<typeof inputSchema>;

export const askUserTool: ToolDefinition<AskUserInput> = {
  name: "ask_user",
  description:
    "Ask the user a question and wait for the answer (optionally offering 2-10 choices). Use only when you " +
    "cannot proceed without their decision. In non-interactive runs there is no one to ask and this fails.",
  inputSchema,
  mutating: false,
  async execute(input, context) {
    if (!context.askUser) {
      return {
        ok: false,
        error:
          "There is no one to ask in this mode (non-interactive run). Decide from what you know, or stop and explain what you need.",
      };
    }
    if (context.signal.aborted)
      return { ok: false, error: "Cancelled: the task was aborted before the question was asked." };
    try {
      const answer = await context.askUser(input.question, input.choices);
      return { ok: true, output: `The user answered: ${answer}` };
    } catch (error) {
      // E.g. the question expired or the channel went away: the model must not read it as an answer.
      return {
        ok: false,
        error: `The question got no answer: ${error instanceof Error ? error.message : String(error)}`,
      };
    }
  },
};

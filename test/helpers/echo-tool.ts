import { z } from "zod";
import type { ToolDefinition } from "../../src/tools/types.js";

/** A minimal real tool for loop tests: echoes its input, or fails when asked to. */
export const echoTool: ToolDefinition<{ text: string; fail?: boolean }> = {
  name: "echo",
  description: "Echoes the text back.",
  inputSchema: z.object({ text: z.string(), fail: z.boolean().optional() }),
  mutating: false,
  async execute(input) {
    if (input.fail) return { ok: false, error: `echo refused: ${input.text}` };
    return { ok: true, output: `echo: ${input.text}` };
  },
};

export const touchTool: ToolDefinition<{ name: string }> = {
  name: "touch",
  description: "Pretends to change a file.",
  inputSchema: z.object({ name: z.string() }),
  mutating: true,
  async execute(input) {
    return { ok: true, output: `touched ${input.name}` };
  },
};

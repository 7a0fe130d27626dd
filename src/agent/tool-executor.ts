import type { ModelMessage, ToolCallRequest } from "../model/types.js";
import type { AnyTool, ToolContext, ToolResult } from "../tools/types.js";

export interface ExecutedCall {
  call: ToolCallRequest;
  tool: AnyTool | undefined;
  result: ToolResult;
  durationMs: number;
}

/**
 * Runs one tool call. Unknown tools, invalid input, thrown errors and aborts all come back as error
 * results for the model: a tool failure never ends the loop by itself.
 */
export async function executeToolCall(
  call: ToolCallRequest,
  tools: readonly AnyTool[],
  context: ToolContext,
): Promise<ExecutedCall> {
  const started = Date.now();
  const tool = tools.find((candidate) => candidate.name === call.toolName);
  const finish = (result: ToolResult): ExecutedCall => ({
    call,
    tool,
    result,
    durationMs: Date.now() - started,
  });
  if (!tool) {
    return finish({
      ok: false,
      error: `unknown tool "${call.toolName}". Available tools: ${tools.map((candidate) => candidate.name).join(", ")}.`,
    });
  }
  const parsed = tool.inputSchema.safeParse(call.input);
  if (!parsed.success) {
    const problems = parsed.error.issues
      .map((issue) => `${issue.path.join(".") || "(input)"}: ${issue.message}`)
      .join("; ");
    return finish({
      ok: false,
      error: `invalid input for ${tool.name}: ${problems}. Fix the arguments and call again.`,
    });
  }
  if (context.signal.aborted)
    return finish({ ok: false, error: "cancelled before it started: the task was stopped" });
  try {
    return finish(await tool.execute(parsed.data, context));
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return finish({ ok: false, error: `${tool.name} failed: ${message}` });
  }
}

export function toolResultMessage(executed: ExecutedCall): ModelMessage {
  return {
    role: "tool",
    content: [
      {
        type: "tool-result",
        toolCallId: executed.call.callId,
        toolName: executed.call.toolName,
        output: executed.result.ok
          ? { type: "text", value: executed.result.output }
          : { type: "error-text", value: executed.result.error },
      },
    ],
  };
}

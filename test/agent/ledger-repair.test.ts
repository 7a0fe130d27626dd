import { describe, expect, it } from "vitest";
import { closeDanglingToolCalls, interruptedToolMessage } from "../../src/agent/ledger-repair.js";
import type { ModelMessage } from "../../src/model/types.js";

const call = (id: string, toolName = "run_command"): ModelMessage => ({
  role: "assistant",
  content: [{ type: "tool-call", toolCallId: id, toolName, input: { command: "ls" } }],
});
const result = (id: string): ModelMessage => ({
  role: "tool",
  content: [
    { type: "tool-result", toolCallId: id, toolName: "run_command", output: { type: "text", value: "ok" } },
  ],
});

describe("closeDanglingToolCalls", () => {
  it("answers each call a crash left without a result, saying it was interrupted", () => {
    const repair = closeDanglingToolCalls([
      { role: "user", content: "go" },
      call("a"),
      result("a"),
      call("b", "write_file"),
    ]);
    expect(repair).toEqual([
      {
        role: "tool",
        content: [
          {
            type: "tool-result",
            toolCallId: "b",
            toolName: "write_file",
            output: { type: "error-text", value: interruptedToolMessage },
          },
        ],
      },
    ]);
  });

  it("changes nothing in a complete transcript", () => {
    expect(closeDanglingToolCalls([{ role: "user", content: "hi" }, call("a"), result("a")])).toEqual([]);
    expect(closeDanglingToolCalls([])).toEqual([]);
  });
});

import { describe, expect, it } from "vitest";
import { claimsInAnswer, taskActions, unsupportedClaim } from "../../../src/agent/completion/claims.js";
import type { ModelMessage } from "../../../src/model/types.js";

/** Session 11: phrasings of "the tests pass" and "I changed it" the pattern list missed, and checks that only looked like passes. */
describe("claims in other phrasings and languages", () => {
  const kinds = (text: string) => claimsInAnswer(text).map((claim) => claim.kind);
  it.each([
    "Everything passes now.",
    "12/12 tests passing.",
    "✅ Tests passing",
    "npm test exits 0 now.",
    "The test suite now runs cleanly.",
    "Test run: 14 passed, 0 failed.",
    "I re-ran npm test and everything is green.",
    "Все тесты проходят.",
    "모든 테스트 통과했습니다.",
    "テストは全部通りました。",
    "測試全部通過。",
  ])("%s → a claim that checks pass", (text) => {
    expect(kinds(text)).toEqual(["checks"]);
  });
  it.each([
    "I made the change in src/sum.js.",
    "I went ahead and fixed it.",
    "I've made the fix.",
    "Changes applied to src/sum.js.",
    "Я исправил ошибку.",
    "수정했습니다.",
  ])("%s → a claim that something changed", (text) => {
    expect(kinds(text)).toEqual(["change"]);
  });
  it.each([
    "The function returns 0 for empty input.",
    "It never fails on empty input.",
    "If no tests fail, merge it.",
    "I don't think the tests pass.",
    "Если тесты проходят, сливай.",
  ])("%s → no claim (plain conversation, a condition, a negation)", (text) => {
    expect(kinds(text)).toEqual([]);
  });
});

const ran = (command: string, output: string): ModelMessage[] => [
  {
    role: "assistant",
    content: [{ type: "tool-call", toolCallId: "c1", toolName: "run_command", input: { command } }],
  },
  {
    role: "tool",
    content: [
      {
        type: "tool-result",
        toolCallId: "c1",
        toolName: "run_command",
        output: { type: "text", value: output },
      },
    ],
  },
];

describe("a check-like command's exit 0 is no support for 'all tests pass' when it proves nothing", () => {
  it.each([
    ["npm test || true", "exit code: 0\n  1 failing\n", "exited 0 only because its status was masked"],
    ["npm test", "exit code: 0\n  2 failing\n", "exited 0 but its output reports failures"],
    [
      "npx vitest run",
      "exit code: 0\nNo test files found, exiting with code 0\n",
      "exited 0 but ran no tests",
    ],
    ["echo all tests pass", "exit code: 0\nall tests pass\n", "only printed text (no check ran)"],
  ])("`%s` → the claim is noted as not verified", (command, output, why) => {
    const note = unsupportedClaim("All tests pass.", taskActions(ran(command, output)), false);
    expect(note).toContain(`\`${command}\`, ${why}`);
  });
  it("a real passing run still supports the claim", () => {
    expect(
      unsupportedClaim("All tests pass.", taskActions(ran("npm test", "exit code: 0\n  3 passing\n")), false),
    ).toBeNull();
  });
});

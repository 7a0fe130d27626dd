import { describe, expect, it } from "vitest";
import { claimsInAnswer, taskActions, unsupportedClaim } from "../../../src/agent/completion/claims.js";
import type { ModelMessage } from "../../../src/model/types.js";

const checkClaims = [
  "All tests pass.",
  "Done. All tests pass now.",
  "I ran the tests and everything is fine.",
  "I've run the test suite.",
  "The build succeeds and the tests are green.",
  "The test suite is passing.",
  "It passes all the tests.",
  "I verified that the fix works.",
  "所有测试都通过了。",
  "测试已经全部通过。",
  "我运行了测试，一切正常。",
  "テストはすべて通りました。",
  "Alle Tests sind bestanden.",
  "Ich habe die Tests ausgeführt.",
  "Todas las pruebas pasan.",
  "He ejecutado las pruebas.",
  "Tous les tests passent.",
  "J'ai lancé les tests.",
  "Todos os testes passam.",
  "Tutti i test passano.",
];

const changeClaims = [
  "Fixed.",
  "I fixed the bug in parse.ts.",
  "I've updated the configuration file.",
  "The bug is now fixed.",
  "It's fixed.",
  "Done, I saved your notes.",
  "已修复这个问题。",
  "我修复了这个错误。",
  "バグを修正しました。",
  "Ich habe den Fehler behoben.",
  "He corregido el error.",
  "J'ai corrigé le bug.",
  "Corrigi o erro.",
  "Ho corretto il bug.",
];

const benign = [
  "If all tests pass, you can merge the branch.",
  "Make sure the build succeeds before you deploy.",
  "Did the tests pass?",
  "I did not run the tests; run `npm test` to check.",
  "I haven't fixed anything yet: the error comes from line 12.",
  "Run the tests to check that all tests pass.",
  "To fix it, change the import on line 3.",
  "You fixed the bug yesterday; the tests pass in CI according to the log.",
  "The CI log says all tests pass.",
  "Paris is the capital of France.",
  "Your test file has three cases: parse, format and round-trip.",
  "Here is the function. I've added type annotations:\n```ts\nfunction add(a: number, b: number) { return a + b; }\n```",
  "I've written a short summary below.",
  "The phrase `all tests pass` means every test ran without a failure.",
  'A message like "All tests pass" is printed by the runner at the end.',
  "The tests fail on line 4 because the import is wrong.",
  "如果所有测试都通过，就可以合并了。",
  "测试没有通过。",
  "Wenn alle Tests bestanden sind, kannst du mergen.",
  "Si todas las pruebas pasan, puedes fusionar.",
  "Si tous les tests passent, tu peux fusionner.",
  "Once the bug is fixed, the tests should pass.",
  "I will fix it next.",
  "Thanks! Have a nice day.",
];

describe("claims in a final answer", () => {
  it.each(checkClaims)("reads %j as a claim about checks", (text) => {
    expect(claimsInAnswer(text).map((claim) => claim.kind)).toContain("checks");
  });

  it.each(changeClaims)("reads %j as a claim of a change", (text) => {
    expect(claimsInAnswer(text).map((claim) => claim.kind)).toContain("change");
  });

  it.each(benign)("reads %j as no claim", (text) => {
    expect(claimsInAnswer(text)).toEqual([]);
  });
});

function call(id: string, toolName: string, input: unknown): ModelMessage {
  return { role: "assistant", content: [{ type: "tool-call", toolCallId: id, toolName, input }] };
}

function result(id: string, toolName: string, value: string, ok = true): ModelMessage {
  return {
    role: "tool",
    content: [
      {
        type: "tool-result",
        toolCallId: id,
        toolName,
        output: ok ? { type: "text", value } : { type: "error-text", value },
      },
    ],
  };
}

describe("whether the task's record bears a claim out", () => {
  const readsOnly = taskActions([call("1", "read_file", { path: "a" }), result("1", "read_file", "text")]);

  it("a pass claimed with no check run is unverified; a change claimed after reads is not borne out", () => {
    expect(unsupportedClaim("All tests pass.", readsOnly, false)).toMatch(
      /^nothing was changed and no check ran in this task; the answer's claim \("All tests pass\."\) is not verified$/,
    );
    expect(unsupportedClaim("I fixed the bug.", readsOnly, false)).toMatch(
      /^nothing was changed \(no file changed and no tool that changes anything succeeded in this task\); the answer's claim \("I fixed the bug\."\) is not borne out$/,
    );
  });

  it("a passing verification or a passing check command bears out a pass claim", () => {
    expect(unsupportedClaim("All tests pass.", readsOnly, true)).toBeNull();
    const ran = taskActions([
      call("1", "run_command", { command: "pytest -q" }),
      result("1", "run_command", "exit code: 0\n3 passed"),
    ]);
    expect(ran.checks).toEqual([{ command: "pytest -q", exitCode: 0 }]);
    expect(unsupportedClaim("All tests pass.", ran, false)).toBeNull();
  });

  it("a check command that failed or was killed does not", () => {
    const failed = taskActions([
      call("1", "run_command", { command: "pytest -q" }),
      result("1", "run_command", "exit code: 1\n1 failed"),
    ]);
    expect(unsupportedClaim("All tests pass.", failed, false)).toMatch(/`pytest -q`, exited 1/);
    const killed = taskActions([
      call("1", "run_command", { command: "npm test" }),
      result("1", "run_command", "the command timed out", false),
    ]);
    expect(unsupportedClaim("I ran the tests.", killed, true)).toMatch(/`npm test`, did not finish/);
  });

  it("a change claim after a tool that acts (a memory saved, a command) is left alone", () => {
    const saved = taskActions([
      call("1", "memory_save", { text: "x" }),
      result("1", "memory_save", "Remembered"),
    ]);
    expect(unsupportedClaim("Done, I saved that.", saved, false)).toBeNull();
  });

  it("an ordinary answer gets no note", () => {
    expect(unsupportedClaim("Paris is the capital of France.", readsOnly, false)).toBeNull();
  });
});

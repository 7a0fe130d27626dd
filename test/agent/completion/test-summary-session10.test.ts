import { describe, expect, it } from "vitest";
import { readTestOutput } from "../../../src/agent/completion/test-summary.js";

describe("an exit 0 where every test was skipped, deselected or only collected tested nothing", () => {
  it.each([
    ["pytest --collect-only -q", "test_a.py::test_add\n\n1 test collected in 0.01s\n"],
    [
      "pytest --collect-only",
      "collected 1 item\n\n<Module test_a.py>\n\n======== 1 test collected in 0.01s ========\n",
    ],
    ["pytest -q, all skipped", "s                                   [100%]\n1 skipped in 0.01s\n"],
    [
      "pytest, all skipped",
      "collected 1 item\n\ntest_a.py s\n\n============ 1 skipped in 0.01s ============\n",
    ],
    ["pytest, all deselected", "=========== 3 deselected in 0.01s ==========="],
    ["pytest, all xfailed", "========= 2 xfailed, 1 warning in 0.01s ========="],
    ["vitest, all skipped", " Test Files  1 skipped (1)\n      Tests  2 skipped (2)\n"],
    ["vitest, all todo", " Test Files  1 skipped (1)\n      Tests  2 todo (2)\n"],
    ["jest, all skipped", "Test Suites: 1 skipped, 0 of 1 total\nTests:       2 skipped, 2 total\n"],
    ["node --test, all skipped", "ℹ tests 2\nℹ suites 0\nℹ pass 0\nℹ fail 0\nℹ cancelled 0\nℹ skipped 2\n"],
    ["node --test TAP, all skipped", "# tests 2\n# pass 0\n# fail 0\n# skipped 2\n"],
    [
      "node 20's TAP with its ok lines",
      "ok 1 - adds # SKIP later\n  ---\n  ...\n1..1\n# tests 1\n# pass 0\n# skipped 1\n",
    ],
    [
      "cargo, all ignored",
      "running 2 tests\ntest a ... ignored\n\ntest result: ok. 0 passed; 0 failed; 2 ignored\n",
    ],
    ["unittest, all skipped", "ss\n------\nRan 2 tests in 0.000s\n\nOK (skipped=2)\n"],
  ])("%s", (_name, output) => {
    expect(readTestOutput(output)).toBe("no tests");
  });

  it.each([
    ["pytest -q, some passed", "..s  [100%]\n2 passed, 1 skipped in 0.01s\n"],
    ["pytest, passed", "======= 2 passed, 1 skipped in 0.01s ======="],
    ["vitest, some passed", "      Tests  2 passed | 1 skipped (3)\n"],
    ["jest, some passed", "Tests:       1 skipped, 2 passed, 3 total\n"],
    ["node --test, some passed", "ℹ tests 3\nℹ pass 2\nℹ fail 0\nℹ skipped 1\n"],
    ["TAP from tape", "# tests 3\n# pass  3\n\n# ok\n"],
    [
      "cargo, unit tests ran, doc tests none",
      "test result: ok. 3 passed; 0 failed\n\ntest result: ok. 0 passed; 0 failed\n",
    ],
    ["go", "ok  \texample.com/p\t0.003s\nok  \texample.com/q\t(cached)\n"],
    ["unittest, some skipped", "Ran 3 tests in 0.000s\n\nOK (skipped=1)\n"],
  ])("a run that tested something is not flagged: %s", (_name, output) => {
    expect(readTestOutput(output)).toBeNull();
  });

  it("pytest -q's failure summary (no ===== rule) is a failure", () => {
    expect(readTestOutput("F.  [100%]\n1 failed, 1 passed in 0.02s\n")).toBe("failures");
  });
});

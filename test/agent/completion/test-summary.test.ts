import { describe, expect, it } from "vitest";
import { readTestOutput } from "../../../src/agent/completion/test-summary.js";

describe("readTestOutput: what a check's output says beside exit 0", () => {
  it.each([
    ["vitest, passWithNoTests", "No test files found, exiting with code 0\n", "no tests"],
    [
      "jest, passWithNoTests",
      "No tests found, exiting with code 0\nRun with `--passWithNoTests` to exit with code 0",
      "no tests",
    ],
    ["mocha, nothing", "\n  0 passing (1ms)\n", "no tests"],
    ["node --test, nothing", "# tests 0\n# suites 0\n# pass 0\n# fail 0\n", "no tests"],
    [
      "unittest, nothing",
      "\n----------------------------------------------------------------------\nRan 0 tests in 0.000s\n\nOK\n",
      "no tests",
    ],
    ["go, no test files anywhere", "?   \texample.com/a\t[no test files]\n", "no tests"],
    ["cargo, nothing", "running 0 tests\n\ntest result: ok. 0 passed; 0 failed\n", "no tests"],
    ["mocha, a failure swallowed", "  3 passing (4ms)\n  1 failing\n", "failures"],
    ["jest, a failure swallowed", "Tests:       1 failed, 2 passed, 3 total\n", "failures"],
    [
      "vitest, a failure swallowed",
      " Test Files  1 failed (1)\n      Tests  1 failed | 2 passed (3)\n",
      "failures",
    ],
    ["pytest, a failure swallowed", "==== 1 failed, 2 passed in 0.12s ====\n", "failures"],
    ["node --test, a failure swallowed", "# tests 3\n# pass 2\n# fail 1\n", "failures"],
  ])("%s", (_name, output, verdict) => {
    expect(readTestOutput(output)).toBe(verdict);
  });

  it.each([
    ["vitest, passing", " Test Files  1 passed (1)\n      Tests  3 passed (3)\n"],
    [
      "go, one package tested, one without tests",
      "ok  \texample.com/a\t0.01s\n?   \texample.com/b\t[no test files]\n",
    ],
    [
      "cargo, unit tests ran, no doc-tests",
      "running 3 tests\ntest result: ok. 3 passed\n   Doc-tests x\nrunning 0 tests\n",
    ],
    ["node --test, passing", "# tests 3\n# pass 3\n# fail 0\n"],
    ["a plain script", ""],
    ["a build", "tsc -p .\n"],
  ])("%s: nothing against the exit code", (_name, output) => {
    expect(readTestOutput(output)).toBeNull();
  });
});

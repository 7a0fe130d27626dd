import { describe, expect, it } from "vitest";
import { readTestOutput } from "../../src/agent/completion/test-summary.js";

/**
 * Runner summaries beyond the JavaScript, Python, Go and Rust ones: an exit 0 beside "0 examples" or
 * "3 failures" (a `|| true`, a wrapper script) proved nothing, and was read as a pass (session 8).
 */
describe("readTestOutput: more runners' summaries", () => {
  it.each([
    ["RSpec", "Finished in 0.01 seconds\n0 examples, 0 failures\n", "no tests"],
    ["RSpec", "Finished in 0.2 seconds\n12 examples, 3 failures\n", "failures"],
    ["RSpec", "12 examples, 0 failures\n", null],
    ["minitest", "0 runs, 0 assertions, 0 failures, 0 errors, 0 skips\n", "no tests"],
    ["minitest", "5 runs, 9 assertions, 1 failures, 0 errors, 0 skips\n", "failures"],
    ["minitest", "5 runs, 9 assertions, 0 failures, 2 errors, 0 skips\n", "failures"],
    ["minitest", "5 runs, 9 assertions, 0 failures, 0 errors, 0 skips\n", null],
    ["PHPUnit", "No tests executed!\n", "no tests"],
    ["PHPUnit", "FAILURES!\nTests: 4, Assertions: 4, Failures: 1.\n", "failures"],
    ["Maven", "Tests run: 0, Failures: 0, Errors: 0, Skipped: 0\n", "no tests"],
    ["Maven", "Tests run: 7, Failures: 2, Errors: 0, Skipped: 0\n", "failures"],
    ["Maven", "Tests run: 7, Failures: 0, Errors: 1, Skipped: 0\n", "failures"],
    ["Maven", "Tests run: 7, Failures: 0, Errors: 0, Skipped: 0\n", null],
    ["Deno", "ok | 0 passed | 0 failed (0ms)\n", "no tests"],
    ["Deno", "FAILED | 3 passed | 1 failed (20ms)\n", "failures"],
    ["CTest", "No tests were found!!!\n", "no tests"],
    ["CTest", "50% tests passed, 1 tests failed out of 2\n", "failures"],
    ["dotnet", "No test is available in /p/bin/Debug/net8.0/p.dll.\n", "no tests"],
    ["dotnet", "Failed!  - Failed:     2, Passed:    10, Skipped:     0, Total:    12\n", "failures"],
  ])("%s: %j", (_runner, output, verdict) => {
    expect(readTestOutput(output)).toBe(verdict);
  });
});

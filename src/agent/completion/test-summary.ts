/**
 * What a check's output says beside its exit code. An exit 0 is evidence only when the run tested
 * something and reported no failure: a runner that found no tests (`--passWithNoTests`, a deleted
 * test file, a glob that matches nothing) or a wrapper that swallowed a failing run (`|| true`)
 * exits 0 too. Read from the summaries the common runners print; output in no known shape says
 * nothing (a plain `sh check.sh` prints nothing and is judged by its exit code alone).
 */
export type OutputVerdict = "failures" | "no tests";

/**
 * A summary line that counts failures above zero (mocha, jest, vitest, pytest, node --test, go, cargo,
 * unittest, and since session 8 RSpec, minitest, PHPUnit, Maven/JUnit, Deno, CTest, dotnet).
 */
const failureSummaries: RegExp[] = [
  /^\s*[1-9]\d* failing\b/m,
  /^\s*Tests?:?\s+[1-9]\d* failed\b/m,
  /^\s*Test Files\s+[1-9]\d* failed\b/m,
  /^=+ .*\b[1-9]\d* (failed|errors?)\b.* =+$/m,
  /^# fail [1-9]\d*$/m,
  /^ℹ fail [1-9]\d*$/m,
  /^--- FAIL: /m,
  /^FAIL\s/m,
  /\btest result: FAILED\b/,
  /^FAILED \((failures|errors)=\d+/m,
  // RSpec, minitest, PHPUnit, Maven/JUnit, Deno, CTest, dotnet test.
  /\b\d+ examples?, [1-9]\d* failures?\b/,
  /\b\d+ runs, \d+ assertions, ([1-9]\d* failures|\d+ failures, [1-9]\d* errors)\b/,
  /^FAILURES!$/m,
  /\bTests run: \d+, (Failures: [1-9]\d*|Failures: \d+, Errors: [1-9]\d*)\b/,
  /\| \d+ passed \| [1-9]\d* failed\b/,
  /\btests passed, [1-9]\d* tests failed out of\b/,
  /^Failed!\s+- Failed:\s+[1-9]\d*/m,
  // pytest -q prints its summary without the ===== rule.
  /^(?:\d+ \w+, )*[1-9]\d* (?:failed|errors?)\b.* in [\d.]+s\b/m,
];

/** A summary that says no test ran. */
const noTestSummaries: RegExp[] = [
  /\bNo tests? (files )?found\b/i,
  /^# tests 0$/m,
  /^ℹ tests 0$/m,
  /^\s*0 passing\b/m,
  /\bRan 0 tests?\b/,
  /\bno tests ran\b/i,
  /\bno test files\b/,
  /^running 0 tests?$/m,
  /\b0 examples, 0 failures\b/,
  /\b0 runs, 0 assertions\b/,
  /\bNo tests executed\b/i,
  /\bTests run: 0, Failures: 0\b/,
  /\| 0 passed \| 0 failed\b/,
  /\bNo tests were found\b/i,
  /\bNo test is available\b/i,
  // Session 10: every test skipped, deselected or only collected is no test run (exit 0 all the same).
  /^=*\s*(?:\d+ (?:skipped|deselected|xfailed|warnings?)(?:, )?)+ in [\d.]+s\b/m,
  /\b\d+ tests? collected in [\d.]+s\b/,
  /^\s*Tests\s+(?:\d+ (?:skipped|todo)(?: \| )?)+\s*\(\d+\)/m,
  /^Tests:\s+(?:\d+ (?:skipped|todo), )+\d+ total/m,
  /^[#ℹ] pass 0$/m,
  /\btest result: ok\. 0 passed\b/,
];

/** A summary that counts tests that ran (overrides a "none" from another part of the same run). */
const ranSummaries: RegExp[] = [
  /^\s*[1-9]\d* passing\b/m,
  /^\s*Tests?:?\s+.*\b[1-9]\d* passed\b/m,
  /^=+ .*\b[1-9]\d* passed\b.* =+$/m,
  // TAP and node --test count passes ("# tests 3" counts skipped ones too).
  /^[#ℹ] pass\s+[1-9]\d*$/m,
  // go's "ok  pkg  0.01s", not Deno's "ok | 0 passed" nor TAP's "ok 1 - name # SKIP".
  /^ok\s+\S+\s+(?:[\d.]+s|\(cached\))/m,
  /\btest result: (?:ok|FAILED)\. [1-9]\d* passed\b/, // cargo ("running 2 tests" counts ignored ones)
  /^(?:\d+ \w+, )*[1-9]\d* passed\b.* in [\d.]+s\b/m, // pytest -q
  /\bRan [1-9]\d* tests?\b/,
  /\b[1-9]\d* examples?, 0 failures\b/,
  /\b[1-9]\d* runs, \d+ assertions, 0 failures\b/,
  /\bTests run: [1-9]\d*, Failures: 0\b/,
  /\| [1-9]\d* passed \| 0 failed\b/,
];

/** unittest's "Ran 2 tests" over "OK (skipped=2)": every test that ran was skipped. */
function unittestAllSkipped(output: string): boolean {
  const ran = /\bRan (\d+) tests?\b/.exec(output)?.[1];
  const skipped = /^OK \(skipped=(\d+)\)$/m.exec(output)?.[1];
  return ran !== undefined && ran === skipped;
}

export function readTestOutput(output: string): OutputVerdict | null {
  if (failureSummaries.some((pattern) => pattern.test(output))) return "failures";
  if (unittestAllSkipped(output)) return "no tests";
  if (ranSummaries.some((pattern) => pattern.test(output))) return null;
  if (noTestSummaries.some((pattern) => pattern.test(output))) return "no tests";
  return null;
}

/** A run that counts as a pass: exit 0, and its output neither reports failures nor says nothing ran. */
export function passed(record: { exitCode: number | null; outputSays?: OutputVerdict | undefined }): boolean {
  return record.exitCode === 0 && record.outputSays === undefined;
}

/** "exited 1", "did not finish", "exited 0 but its output reports failures", "… but ran no tests". */
export function describeRun(record: {
  exitCode: number | null;
  outputSays?: OutputVerdict | undefined;
}): string {
  if (record.exitCode === null) return "did not finish (timed out or killed)";
  if (record.exitCode === 0 && record.outputSays === "failures")
    return "exited 0 but its output reports failures";
  if (record.exitCode === 0 && record.outputSays === "no tests") return "exited 0 but ran no tests";
  return `exited ${record.exitCode}`;
}

/**
 * What a change did to the tests inside a file, read from its content before and after (session 11).
 * Names alone miss tests that live where no naming rule looks: Rust's `#[cfg(test)]` module in
 * src/lib.rs, vitest's in-source `import.meta.vitest` block, a `checks/` folder the script runs, a
 * file a runner finds by a name the rules do not list. A skip marker added, a test definition
 * removed, the in-source test block rewritten, or a test file that now sets the process's exit code
 * is a weakened check whatever the file is called; the gate then says which it was.
 */

/** Markers that switch a test off (or focus the run away from the others), with the name said. */
const skipMarkers: { pattern: RegExp; name: string }[] = [
  {
    pattern: /(?<![\w$.])(?:it|test|describe|suite|context|specify|bench)\.(?:skip|todo|only)\b/g,
    name: "it.skip/only/todo",
  },
  { pattern: /(?<![\w$.])(?:it|test|describe)\.skipIf\b/g, name: "skipIf" },
  {
    pattern: /(?<![\w$.])(?:xit|xdescribe|xtest|xcontext|xspecify|fit|fdescribe)\s*\(/g,
    name: "xit/xdescribe/fit",
  },
  { pattern: /\b(?:t|this|ctx|context)\.skip\s*\(/g, name: "t.skip()" },
  { pattern: /\b(?:skip|todo)\s*:\s*(?:true|['"`])/g, name: "{ skip: true }" },
  { pattern: /@pytest\.mark\.(?:skip|skipif|xfail)\b/g, name: "@pytest.mark.skip" },
  { pattern: /@unittest\.(?:skip|skipIf|skipUnless|expectedFailure)\b/g, name: "@unittest.skip" },
  { pattern: /\bpytest\.(?:skip|xfail)\s*\(/g, name: "pytest.skip()" },
  { pattern: /\bself\.skipTest\s*\(|\braise\s+(?:unittest\.)?SkipTest\b/g, name: "skipTest" },
  { pattern: /\bt\.Skip(?:Now|f)?\s*\(/g, name: "t.Skip()" },
  { pattern: /^\/\/\s*(?:go:build|\+build)\s+ignore\b/gm, name: "//go:build ignore" },
  { pattern: /#\[ignore\b/g, name: "#[ignore]" },
  { pattern: /@(?:Disabled|Ignore)\b/g, name: "@Disabled/@Ignore" },
  { pattern: /\bmarkTestSkipped\s*\(/g, name: "markTestSkipped()" },
];

/** One test definition, per language (a decrease is a test removed). */
const testDefinitions: RegExp[] = [
  /(?<![\w$.])(?:it|test|specify)\s*\(\s*['"`]/g,
  /^\s*(?:async\s+)?def\s+test\w*\s*\(/gm,
  /^func\s+Test\w*\s*\(/gm,
  /#\[(?:[\w:]+::)?test\]/g,
  /@Test\b/g,
];

/** Where a file's in-source tests start: what follows is test code, however the file is named. */
const inSourceTests: { pattern: RegExp; name: string }[] = [
  { pattern: /^\s*#\[cfg\(test\)\]/m, name: "#[cfg(test)]" },
  { pattern: /\bimport\.meta\.vitest\b/, name: "import.meta.vitest" },
];

/** Setting the process's exit code from a test file: a failing run that exits 0 all the same. */
const exitOverrides =
  /\bprocess\.(?:exitCode\s*=|exit\s*\(|reallyExit\s*\()|\bos\._exit\s*\(|\bsys\.exit\s*\(|\bexitstatus\s*=|\bos\.Exit\s*\(/g;

/** Source files whose content is read (others, binary or data, are judged by name only). */
export const codeFile = /\.(?:[cm]?[jt]sx?|py|go|rs|java|kt|rb|php|cs|swift)$/;

const count = (pattern: RegExp, text: string): number => text.match(pattern)?.length ?? 0;

/**
 * What the change from `before` to `after` (null: absent) did to the tests in one file, in words, or
 * null for nothing. `testLocation` says the file is a test (or a helper in a test folder) by its
 * path: only there does setting the exit code weaken a check (a CLI's `process.exit` is its job).
 */
export function testWeakening(
  before: string | null,
  after: string | null,
  testLocation: boolean,
): string | null {
  const old = before ?? "";
  const now = after ?? "";
  const found: string[] = [];
  const definitions = (text: string) =>
    testDefinitions.reduce((sum, pattern) => sum + count(pattern, text), 0);
  const holdsTests =
    testLocation ||
    definitions(old) + definitions(now) > 0 ||
    inSourceTests.some((block) => block.pattern.test(old));
  // In a file that holds no test, `skip: true` or `todo: "…"` is ordinary data, not a test switched off.
  const skips = !holdsTests
    ? []
    : skipMarkers.filter((marker) => count(marker.pattern, now) > count(marker.pattern, old));
  skipMarkers.filter((marker) => count(marker.pattern, now) > count(marker.pattern, old));
  if (skips.length > 0)
    found.push(`test switched off (${skips.map((marker) => marker.name).join(", ")} added)`);
  const removed = definitions(old) - definitions(now);
  if (removed > 0) found.push(`${removed} test definition(s) removed`);
  for (const block of inSourceTests) {
    const start = block.pattern.exec(old)?.index;
    if (start === undefined) continue;
    const then = old.slice(start);
    const later = block.pattern.exec(now);
    if (later === null || now.slice(later.index) !== then)
      found.push(`in-source tests (${block.name}) ${later === null ? "removed" : "rewritten"}`);
  }
  if (testLocation && count(exitOverrides, now) > count(exitOverrides, old))
    found.push("sets the process's exit code (a failing run could exit 0)");
  return found.length > 0 ? found.join(", ") : null;
}

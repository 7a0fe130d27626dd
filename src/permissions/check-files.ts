/**
 * The names of the files that decide how a task is checked, shared by the permission engine's earlier
 * wall (`check-targets.ts`: a command that changes one is asked of a person) and the completion gate
 * (`src/agent/completion/check-changes.ts`: the diff at the end is read for them). One list, so the
 * two can never disagree about what a check file is.
 */

/** Files that define how verification runs, with what each is in words. */
export const definitionFiles: { pattern: RegExp; what: string }[] = [
  { pattern: /(^|\/)(GNU)?[Mm]akefile$/, what: "Makefile (targets)" },
  {
    pattern:
      /(^|\/)(vitest|vite|jest|playwright|cypress|karma|ava|mocha|nyc|wdio|tsconfig)[\w.-]*\.(c|m)?(js|ts|json|yaml|yml)$/,
    what: "test runner configuration",
  },
  { pattern: /(^|\/)\.mocharc[\w.]*$/, what: "test runner configuration" },
  {
    pattern: /(^|\/)(pytest\.ini|tox\.ini|setup\.cfg|conftest\.py|noxfile\.py|pyproject\.toml)$/,
    what: "test runner configuration",
  },
  {
    // Linters and type checkers judge too when the verification runs them (`npm run check`).
    pattern:
      /(^|\/)(biome\.jsonc?|\.eslintrc[\w.]*|eslint\.config\.[cm]?[jt]s|\.prettierrc[\w.]*|prettier\.config\.[cm]?js|ruff\.toml|\.ruff\.toml|mypy\.ini|\.flake8|\.pylintrc|pyrightconfig\.json|\.golangci\.ya?ml|clippy\.toml|phpunit\.xml(\.dist)?)$/,
    what: "lint or type-check configuration",
  },
  { pattern: /(^|\/)(\.github\/workflows\/|\.circleci\/|\.ci\/)/, what: "CI configuration" },
  {
    pattern: /(^|\/)(\.gitlab-ci\.yml|\.travis\.yml|azure-pipelines\.yml|Jenkinsfile)$/,
    what: "CI configuration",
  },
];

/** package.json: its scripts (and inline runner settings) are part of the checks. */
export const packageJsonFile = /(^|\/)package\.json$/;

/**
 * Test files by their usual names and folders, and what tests compare against (snapshots, golden
 * files, fixtures, Go testdata): rewriting an expected output to match a wrong one weakens the test.
 * Session 11 adds the names `node --test` finds by default (`math-test.js`, `test-math.js`, `test.js`)
 * and unittest's `test*.py` (Django's `tests.py`), and the setup file jest loads in a Create React App
 * project (`src/setupTests.js`: `process.exitCode = 0` there turns a failing run into a pass).
 */
export const testFile =
  /(^|\/)(tests?|__tests__|spec|specs|__snapshots__|__fixtures__|fixtures|testdata|golden)\/|[._-](test|spec)\.[\w]+$|(^|\/)test\w*\.py$|(^|\/)test(?:[-_][\w.-]+)?\.[cm]?[jt]sx?$|(^|\/)setup-?[Tt]ests?\.[cm]?[jt]sx?$|_test\.go$|\.snap$|\.golden$/;

/** A folder that is a test folder by its name. */
export const testFolder =
  /(^|\/)(tests?|__tests__|spec|specs|__snapshots__|__fixtures__|fixtures|testdata|golden)$/;

/** Whether a path (relative to the workspace) is a definition file or package.json. */
export function isDefinitionFile(path: string): boolean {
  return packageJsonFile.test(path) || definitionFiles.some((entry) => entry.pattern.test(path));
}

/**
 * Task runners' files a test command runs through (`just test`, `task test`, `rake test`, `mage test`)
 * and CI's local actions (`.github/actions/`).
 * Pass 9 adds them to the engine's wall only; the completion gate's list is unchanged.
 * Pass 11 adds the runner configuration the gate hashes with its judge (`judge-files.ts`): package
 * managers' rc files, babel, cargo's config and toolchain, go.work, pytest's own files, make includes.
 */
export const engineDefinitionFile =
  /(^|\/)(\.?[Jj]ustfile|[Tt]askfile(\.dist)?\.ya?ml|Rakefile|magefile\.go)$|(^|\/)\.github\/actions\/|(^|\/)(\.yarnrc(\.yml)?|\.npmrc|\.pnpmfile\.cjs|bunfig\.toml|babel\.config\.[cm]?(js|json)|\.babelrc(\.js)?|go\.work|rust-toolchain(\.toml)?|\.?pytest\.(ini|toml)|[\w.-]+\.mk)$|(^|\/)\.cargo\/config(\.toml)?$/;

/**
 * The files a verification names, so a change to one is a change to the check (check-changes.ts):
 * exact file names anywhere (`node check.js`, `sh ./run-tests.sh`), and — in a part of the command
 * that runs a test runner which runs every file it is given — the globs it is given (`node --test
 * 'qa/**\/*.js'`) and, for runners that run a whole folder, the folders (`mocha checks`, `tap spec/`). Session 11: the files under such a
 * folder had no test-like name, so a task could rewrite their assertions unseen. Folders and globs
 * given to other programs (`tsc -p src`, `eslint 'src/**'`) name source, not tests, and are left out.
 */
export interface NamedByCheck {
  matches(path: string): boolean;
}

/** Runners that run every file a glob gives them (the shell expands it to a list of files), whatever their names. */
const filesRunners = /^(?:--test|_?mocha|tap|tape|ava|jasmine|pytest|py\.test|bats|unittest)$/;
/**
 * Runners that run every file of a folder they are given. `pytest src` or `node --test src` pick
 * the test-named files of a folder (those the name rules already see), so their folders are not all tests.
 */
const folderRunners = /^(?:_?mocha|tap|bats)$/;

export function namedByVerification(texts: string[], isFolder: (word: string) => boolean): NamedByCheck {
  const names = new Set<string>();
  const folders = new Set<string>();
  const globs: RegExp[] = [];
  for (const text of texts)
    for (const segment of text.split(/&&|\|\||[;|\n]/)) {
      const words = segment
        .split(/[\s()<>"'`=]+/)
        .filter((word) => word !== "")
        .map((word) => word.replace(/^\.\//, ""));
      const runsFiles = words.some((word) => filesRunners.test(word));
      const runsFolders = words.some((word) => folderRunners.test(word));
      for (const word of words) {
        if (/[*?{[]/.test(word)) {
          if (runsFiles) globs.push(globPattern(word));
          continue;
        }
        if (/[\w-]+\.\w+$/.test(word) || word.includes("/")) names.add(word.replace(/\/+$/, ""));
        if (!runsFolders || word.startsWith("-")) continue;
        if (word.endsWith("/") || (word.includes("/") && !/\.\w+$/.test(word)) || isFolder(word))
          folders.add(word.replace(/\/+$/, ""));
      }
    }
  return {
    matches: (path) =>
      names.has(path) ||
      [...folders].some((folder) => path.startsWith(`${folder}/`)) ||
      globs.some((glob) => glob.test(path)),
  };
}

/** A shell or runner glob as a regular expression over workspace-relative paths. */
function globPattern(glob: string): RegExp {
  let source = "";
  const text = glob.replace(/^\.\//, "");
  for (let index = 0; index < text.length; index += 1) {
    const char = text[index] ?? "";
    if (text.startsWith("**/", index)) {
      source += "(?:.*/)?";
      index += 2;
    } else if (text.startsWith("**", index)) {
      source += ".*";
      index += 1;
    } else if (char === "*") source += "[^/]*";
    else if (char === "?") source += "[^/]";
    else if (char === "{") source += "(?:";
    else if (char === "}") source += ")";
    else if (char === ",") source += "|";
    else source += char.replace(/[.+^$()|[\]\\]/g, "\\$&");
  }
  return new RegExp(`^${source}$`);
}

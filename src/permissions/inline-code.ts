import { checkChangeAt } from "./check-targets.js";
import { type PathScope, pathFinding, sensitiveArgument } from "./command-paths.js";
import { computedCodeFinding, foldedLiterals } from "./computed-code.js";
import { isMercuryState, isWithin } from "./context.js";
import { hardlineCheck } from "./hardline.js";
import { bareCommands, spelledOut } from "./inline-code-spelled.js";
import { resolveReal } from "./paths.js";
import type { Finding } from "./shell-words.js";
import { isHardDenial } from "./speculation.js";

/**
 * Code handed to an interpreter (`python3 -c`, `node -e`, `perl -e`, a here-document into `ruby`)
 * cannot be judged like shell: it always asks. What it spells out literally still meets the
 * hardline, so `--yes` or a hurried approval cannot run it:
 * - a string that is itself a shell command (`os.system("rm -rf ~")`, ``execSync(`rm -rf /`)``);
 * - a string naming a secret, also when joined to the home folder in code
 *   (`os.environ["HOME"] + "/.ssh/id_rsa"`, `path.join(os.homedir(), "/.aws/credentials")`);
 * - a deletion call (`shutil.rmtree`, `fs.rmSync`, `FileUtils.rm_rf`…) whose target is the home
 *   folder or `/` (`shutil.rmtree(Path.home())`, `fs.rmSync("/", …)`).
 */

const stringLiteral = /(["'`])((?:\\.|(?!\1)[^\\])*)\1/gs;

const homeExpression =
  /expanduser\(\s*["']~\/?["']\s*\)|Path\.home\(\)|homedir\(\)|environ(?:\.get\(\s*|\[\s*)["']HOME["']|getenv\(\s*["']HOME["']|env\.get\(\s*["']HOME["']|process\.env\.HOME\b|process\.env\[\s*["']HOME["']|ENV\[\s*["']HOME["']|\$ENV\{\s*HOME\s*\}|Dir\.home|\$HOME\b|os\.UserHomeDir\(\)|\$env:HOME|home_dir\(\)|ENVIRON\[\s*["']HOME["']/;

const mercuryHomeExpression = /MERCURY_HOME/;

/** Code that writes, moves or deletes files (Python, Node, Ruby, Perl spellings). */
const writingCode =
  /open\((?:[^()]|\([^()]*\))*,\s*["'`][wax+]|\bprintf?\b[^;|()]*>>?\s*(?:["\w]|ENVIRON)|write_text|write_bytes|writeFile|appendFile|createWriteStream|copyFile|rename|unlink|rmSync|rmtree|os\.remove|os\.replace|File\.delete|shutil\.(copy|move)|File\.write|IO\.write|FileUtils|>\s*\$|open\s*\(\s*\w+\s*,\s*["']>/;

// `(?<=\.)remove`: Deno.remove(Sync), fs-extra's remove(Sync); emptyDir empties a folder like `rm -rf DIR/*`;
// pass 11: R's `unlink("~", recursive = TRUE)`, Julia's `rm(homedir(), recursive = true)`.
const deletionCall =
  /\b(?:rmtree|rm_rf|rm_r|remove_tree|rmSync|rmdirSync|rimraf(?:\.sync)?|removedirs|RemoveAll|deleteRecursively|remove_dir_all|remove_dir|remove_entry(?:_secure)?|Remove-Item|fs\.rm|fs\.promises\.rm|fsp\.rm|rmdir|(?<=\.)remove(?:Sync)?|emptyDir(?:Sync)?|unlink|rm)\s*\(/g;

export interface InlineCodeScope extends PathScope {
  /** Judges shell text found in the code; only its hardline and secret denials are kept. */
  analyzeShell(script: string): Finding[];
}

export function inlineCodeFindings(code: string, scope: InlineCodeScope): void {
  const literals = [...code.matchAll(stringLiteral)].map((match) => unescapeLiteral(match[2] as string));
  // The same code with the home folder written in where it is computed, and bare commands (Tcl's `exec`).
  const spelled = spelledOut(code, scope.context.home);
  const spelledLiterals = [...spelled.matchAll(stringLiteral)].map((match) =>
    unescapeLiteral(match[2] as string),
  );
  // Pass 12: code that builds what it runs from codes, decoders or computed names is opaque.
  const computed = computedCodeFinding(code);
  if (computed) scope.add(computed);
  for (const literal of [...spelledLiterals, ...foldedLiterals(spelled), ...bareCommands(spelled)]) {
    if (!/\s/.test(literal.trim())) continue;
    const denial = scope.analyzeShell(literal).find(isHardDenial);
    if (denial) {
      scope.add(denial);
      return;
    }
  }
  // `subprocess.run(["rm", "-rf", "/"])`, `execFileSync("rm", ["-rf", "~"])`: an argv spelled as strings.
  for (let index = 0; index + 1 < spelledLiterals.length; index++) {
    const program = spelledLiterals[index] as string;
    if (!/^[a-z][\w.+-]*$/.test(program)) continue;
    const words = spelledLiterals
      .slice(index, index + 8)
      .map((text) => ({ text, exact: true, glob: false, findings: [] }));
    const hard = hardlineCheck({ words, program, via: [] }, scope.context, scope.fsApi);
    if (hard) {
      scope.add(hard);
      return;
    }
  }
  const usesHome = homeExpression.test(code);
  const usesMercuryHome = mercuryHomeExpression.test(code);
  const writes = writingCode.test(code);
  // `File.join(Dir.home, ".aws", "credentials")`, `Path.home() / ".ssh" / "id_rsa"`: segments in a row.
  if (usesHome) {
    const segments = spelledLiterals.map((literal) =>
      /^[\w.@+-][\w.@+/-]*$/.test(literal) ? literal : null,
    );
    for (let start = 0; start < segments.length; start++) {
      let joined = scope.context.home;
      for (const segment of segments.slice(start, start + 4)) {
        if (segment === null) break;
        joined = `${joined}/${segment.replace(/^\/+/, "")}`;
        sensitiveArgument(scope, joined);
      }
    }
  }
  // Spelled out: `"$ENV{HOME}/.aws/credentials"` names the secret once the home folder is written in.
  for (const literal of spelledLiterals)
    if (!/\s/.test(literal) && literal.startsWith(scope.context.home)) sensitiveArgument(scope, literal);
  for (const literal of literals) {
    if (literal === "" || /\s/.test(literal) || !(literal.includes("/") || literal.startsWith("~"))) continue;
    sensitiveArgument(scope, literal);
    const relative = literal.replace(/^\/+/, "");
    if (usesHome) sensitiveArgument(scope, `${scope.context.home}/${relative}`);
    if (usesMercuryHome) sensitiveArgument(scope, `${scope.context.mercuryHome}/${relative}`);
    // Code that writes files and names Mercury's own folder: config, soul and permission state are the user's.
    const named = usesMercuryHome
      ? `${scope.context.mercuryHome}/${relative}`
      : literal.startsWith("~/")
        ? `${scope.context.home}/${literal.slice(2)}`
        : literal;
    if (writes && namesMercuryState(named, scope)) {
      scope.add({
        decision: "deny",
        rule: "path.mercury-state",
        reason: `code that writes files names ${literal}, inside Mercury's own folder (${scope.context.mercuryHome}); the agent never changes it`,
      });
      return;
    }
  }
  // Code that writes files and names a place outside the workspace (`open('/home/u/.bashrc','a')`,
  // `appendFileSync(homedir() + '/.bashrc')`): a person's call, not allow-all's.
  if (writes) {
    // `writeFileSync("package.json", …)`, `open("test/a_test.py", "w")`: code that rewrites the checks.
    for (const literal of literals)
      if (literal !== "" && !/\s/.test(literal) && /[./]/.test(literal))
        checkChangeAt(literal, scope, "ignored");
    for (const literal of literals) {
      if (/\s/.test(literal) || !(literal.startsWith("/") || literal.startsWith("~/"))) continue;
      pathFinding(scope, literal, "write", "command.inline-code");
    }
    if (usesHome) {
      scope.add({
        decision: "ask",
        rule: "path.outside-roots",
        reason: "code that writes files builds a path from the home folder, outside the workspace",
      });
    }
  }
  // `h = Path.home()` … `rmtree(h)`: names that hold the home folder.
  const homeNames = new Set<string>();
  for (const match of code.matchAll(/(?:\b|\$)(\w+)\s*:?=\s*([^;\n]{0,120})/g)) {
    if (homeExpression.test(match[2] as string) && !/["'`][^"'`]*\/[^"'`]/.test(match[2] as string))
      homeNames.add(match[1] as string);
  }
  for (const call of code.matchAll(deletionCall)) {
    const argument = balancedArgument(code, (call.index ?? 0) + call[0].length);
    for (const target of deletionTargets(argument, homeNames)) {
      const words = ["rm", "-rf", target].map((text) => ({ text, exact: true, glob: false, findings: [] }));
      const hard = hardlineCheck({ words, program: "rm", via: [] }, scope.context, scope.fsApi);
      if (hard) {
        scope.add(hard);
        return;
      }
    }
  }
}

/** What a deletion call removes: its literal paths, or the home folder when that is all it names. */
function deletionTargets(argument: string, homeNames: ReadonlySet<string>): string[] {
  // A joined path (`os.path.join(home, "build")`, `home + "/x"`, `Path.home() / "x"`) is inside, not the root.
  if (/join|resolve\(|\+|[\w)]\s+\/\s*["'`]|,\s*["'`]\w/.test(argument)) return [];
  const all = [...argument.matchAll(stringLiteral)].map((match) => unescapeLiteral(match[2] as string));
  const targets = all.filter(
    (literal) => literal.startsWith("/") || literal.startsWith("~") || /^\.\.?\/?$/.test(literal),
  );
  // Only the home folder itself: `rmtree(Path.home())`, `rmSync(os.homedir(), …)`, `rmtree(h)`; a
  // joined name (`path.join(os.homedir(), "build")`) is some folder inside it, not a hardline.
  const first = /^\s*\$?(\w+)\s*(?:,|$)/.exec(argument)?.[1];
  const namesHome = homeExpression.test(argument) || (first !== undefined && homeNames.has(first));
  const extra = all.filter(
    (literal) => !["~", "~/", "HOME", "/"].includes(literal) && !/^\w+$/.test(literal),
  );
  if (namesHome && extra.length === 0) targets.push("~");
  return targets;
}

/** The text between a call's parentheses (up to 500 characters). */
function balancedArgument(code: string, start: number): string {
  let depth = 1;
  let index = start;
  for (; index < code.length && index < start + 500; index++) {
    const char = code[index];
    if (char === "(") depth += 1;
    else if (char === ")") {
      depth -= 1;
      if (depth === 0) break;
    }
  }
  return code.slice(start, index);
}

function unescapeLiteral(text: string): string {
  return text.replace(/\\(.)/g, "$1");
}

/**
 * Mercury's state by name, or by where the name leads: inside MERCURY_HOME/workspace a link made
 * earlier can point back at config.yaml, which the name alone (outside the state) would not show.
 */
function namesMercuryState(named: string, scope: InlineCodeScope): boolean {
  const { mercuryHome, cwd, home } = scope.context;
  if (!isWithin(named, mercuryHome)) return false;
  if (isMercuryState(named, mercuryHome)) return true;
  const real = resolveReal(named, cwd, home, scope.fsApi);
  return real.ok && isMercuryState(real.realPath, mercuryHome);
}

/**
 * Interpreter code spelled out for the hardline: what a program's code would hand to a shell or an
 * argv, with the home folder written in where the code computes it. `system("rm -rf " + Dir.home)`,
 * `spawnSync("rm", ["-rf", os.homedir()])`, `"rm -rf #{ENV["HOME"]}"`, Perl's `qx{rm -rf ~}`, Ruby's
 * `%w(rm -rf /)` and Tcl's bare `exec rm -rf ~` all become string literals the literal checks of
 * inline-code.ts read like any other. Only hardline and secret denials are kept from what is found, so
 * a spelling that reads too much into data costs nothing but a deny of a command that names `rm -rf ~`.
 */

/** One expression for the home folder, with its module prefix (`os.`, `require("os").`) and brackets. */
const homeForms = [
  String.raw`expanduser\(\s*["']~\/?["']\s*\)`,
  String.raw`expand_path\(\s*["']~\/?["']\s*\)`,
  String.raw`Path\.home\(\)`,
  String.raw`homedir\(\)`,
  String.raw`home_dir\(\)`,
  String.raw`UserHomeDir\(\)`,
  String.raw`environ(?:\.get\(\s*["']HOME["'][^)]*\)|\[\s*["']HOME["']\s*\])`,
  String.raw`getenv\(\s*["']HOME["'][^)]*\)`,
  String.raw`env\.get\(\s*["']HOME["'][^)]*\)`,
  String.raw`getpw\w*\((?:[^()]|\([^()]*\))*\)\s*\.\s*(?:pw_)?dir\b`,
  String.raw`userInfo\(\)\s*\.\s*homedir\b`,
  String.raw`Path\(\s*["']~["']\s*\)\s*\.\s*expanduser\(\)`,
  String.raw`env\.HOME\b`,
  String.raw`env\[\s*["']HOME["']\s*\]`,
  String.raw`ENV(?:IRON)?\[\s*["']HOME["']\s*\]`,
  String.raw`\$ENV\{\s*["']?HOME["']?\s*\}`,
  String.raw`Dir\.home\b`,
  String.raw`\$(?:::)?env\(HOME\)`,
  String.raw`\$env:HOME\b`,
  String.raw`\$\{?HOME\}?(?!\w)`,
];
const modulePrefix = String.raw`(?:(?:require\(\s*["'][\w:/]+["']\s*\)|[A-Za-z_]\w*)\s*\.\s*)*`;
const homeAnywhere = new RegExp(`${modulePrefix}(?:${homeForms.join("|")})`, "g");

const marker = "\uE000HOME\uE000";
const literal = String.raw`(["'\`])((?:\\.|(?!\1)[^\\])*)\1`;
/** Concatenation operators of the interpreters: `+` (JS, Python, Ruby), `.` (Perl, PHP), `..` (Lua), juxtaposition (awk). */
const joiner = String.raw`\s*(?:\+|\.\.?|)\s*`;

/** The code with every home expression replaced by the home folder's path, joined into its literals. */
export function spelledOut(code: string, home: string): string {
  let text = code
    .replace(/%x\(([^)]*)\)|%x\{([^}]*)\}|qx\s*\(([^)]*)\)|qx\s*\{([^}]*)\}/g, (...groups) =>
      JSON.stringify(firstDefined(groups.slice(1, 5))),
    )
    .replace(/%[wW]\(([^)]*)\)|%[wW]\[([^\]]*)\]|qw\s*\(([^)]*)\)|qw\s*\{([^}]*)\}/g, (...groups) =>
      firstDefined(groups.slice(1, 5))
        .split(/\s+/)
        .filter((word) => word !== "")
        .map((word) => JSON.stringify(word))
        .join(", "),
    )
    .replace(homeAnywhere, marker);
  text = withHomeNames(text).replace(/#\{\uE000HOME\uE000\}|\$\{\uE000HOME\uE000\}/g, marker);
  const before = new RegExp(`${literal}${joiner}${marker}`, "g");
  const after = new RegExp(`${marker}${joiner}${literal}`, "g");
  for (let round = 0; round < 8 && text.includes(marker); round++) {
    const next = text
      .replace(before, (_all, quote: string, body: string) => `${quote}${body}${marker}${quote}`)
      .replace(after, (_all, quote: string, body: string) => `${quote}${marker}${body}${quote}`);
    if (next === text) break;
    text = next;
  }
  // Left over: inside a literal it is part of the text; on its own it is an argument (`system("rm", "-rf", Dir.home)`).
  return text.replace(new RegExp(`${literal}|${marker}`, "g"), (all: string) =>
    all === marker ? JSON.stringify(home) : all.replaceAll(marker, home),
  );
}

/**
 * `h = Dir.home` … `system("rm", "-rf", h)`, `my $h = $ENV{HOME}; system("rm -rf $h")`: names assigned
 * the home folder stand for it wherever they are used, interpolated into strings (`"$h"`, `"#{h}"`,
 * `` `${h}` ``, `f"{h}"`) too. Single-quoted text is left alone except in Python and JavaScript,
 * which do not interpolate in any quotes (there a name inside quotes is just text, also left alone).
 */
function withHomeNames(text: string): string {
  const names = new Set<string>();
  const assignment = new RegExp(`(?:\\b|\\$)([A-Za-z_]\\w*)\\s*:?=\\s*${marker}\\s*(?=[;\\n)]|$)`, "g");
  for (const match of text.matchAll(assignment)) names.add(match[1] as string);
  if (names.size === 0) return text;
  const alternatives = [...names].join("|");
  const inside = new RegExp(
    `#\\{(?:${alternatives})\\}|\\$\\{(?:${alternatives})\\}|\\$(?:${alternatives})\\b`,
    "g",
  );
  const pythonField = new RegExp(`\\{(?:${alternatives})\\}`, "g");
  return text.replace(
    new RegExp(`${literal}|\\$?\\b(?:${alternatives})\\b`, "g"),
    (all: string, quote: string | undefined, _body: string, offset: number) => {
      if (quote === undefined) return marker;
      if (quote === "'") return text[offset - 1] === "f" ? all.replace(pythonField, marker) : all;
      const interpolated = all.replace(inside, marker);
      return text[offset - 1] === "f" ? interpolated.replace(pythonField, marker) : interpolated;
    },
  );
}

/**
 * Commands written bare in code, as Tcl and expect run them (`exec rm -rf ~`, `spawn …`, `[exec …]`),
 * and Tcl's `file delete -force PATH` as the `rm -rf` it is.
 */
export function bareCommands(code: string): string[] {
  const out: string[] = [];
  for (const match of code.matchAll(/(?:^|[\n;[{])\s*(?:exec|spawn|exp_spawn|system)[ \t]+([^\n;\]}]+)/g))
    out.push((match[1] as string).trim());
  for (const match of code.matchAll(/\bfile\s+delete\s+((?:-\w+\s+)*)(?:--\s+)?([^\n;\]}]+)/g))
    out.push(`rm -rf ${(match[2] as string).trim()}`);
  return out.filter((command) => !command.startsWith("("));
}

/**
 * Code that runs each line of its input as a command (`awk '{system($0)}'`, `perl -ne 'system $_'`,
 * `awk '{print | "sh"}'`): what is piped into it is shell.
 */
export function runsInputAsShell(code: string): boolean {
  return /\bsystem\s*\(?\s*\$(?:0|_)\b|\|\s*["'](?:ba|da|z|k)?sh["']|\b(?:popen|exec|qx)\s*\(?\s*\$(?:0|_)\b|`\$_`/.test(
    code,
  );
}

function firstDefined(values: unknown[]): string {
  return (values.find((value) => typeof value === "string") as string | undefined) ?? "";
}

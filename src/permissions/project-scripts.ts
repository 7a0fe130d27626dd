import { resolve } from "node:path";
import { readScript } from "./command-stdin.js";

/**
 * The shell text a project command runs: `npm test` runs package.json's `pretest`, `test` and
 * `posttest` scripts; `make` runs the recipes of the Makefile. Such commands stay askable and
 * `--yes` may approve them (the sandbox contains them), but the scripts themselves meet the
 * hardline: a Makefile the model wrote with `rm -rf ~` in it is a deny, not an approval.
 */

const runners = new Set(["npm", "pnpm", "yarn", "bun"]);
const lifecycle = new Set(["test", "start", "stop", "restart", "install", "ci", "pack", "publish"]);

export function projectScriptText(program: string, args: string[], cwd: string): string | null {
  const where = resolve(cwd, directoryOption(args) ?? ".");
  const rest = withoutDirectoryOption(args);
  if (runners.has(program)) return packageScript(program, rest, where);
  if (program === "make" || program === "gmake") return makeRecipes(rest, where);
  return null;
}

/** `npm --prefix DIR`, `pnpm -C DIR`, `yarn --cwd DIR`, `make -C DIR`: where the project is. */
const directoryOptions = ["--prefix", "-C", "--dir", "--cwd", "--directory"];

function directoryOption(args: string[]): string | undefined {
  for (let index = 0; index < args.length; index++) {
    const arg = args[index] as string;
    if (directoryOptions.includes(arg)) return args[index + 1];
    const equals = arg.indexOf("=");
    if (equals > 0 && directoryOptions.includes(arg.slice(0, equals))) return arg.slice(equals + 1);
  }
  return undefined;
}

function withoutDirectoryOption(args: string[]): string[] {
  const out: string[] = [];
  for (let index = 0; index < args.length; index++) {
    const arg = args[index] as string;
    if (directoryOptions.includes(arg)) index += 1;
    else if (!directoryOptions.some((option) => arg.startsWith(`${option}=`))) out.push(arg);
  }
  return out;
}

function packageScript(program: string, args: string[], cwd: string): string | null {
  const operands = args.filter((arg) => !arg.startsWith("-"));
  let name: string | undefined;
  if (["run", "run-script", "rum", "urn"].includes(operands[0] ?? "")) name = operands[1];
  else if (lifecycle.has(operands[0] ?? "") || (operands[0] === "t" && program !== "bun")) name = operands[0];
  else if (program === "yarn" || program === "pnpm" || program === "bun") name = operands[0];
  if (name === undefined) return null;
  if (name === "t") name = "test";
  const text = readScript("package.json", cwd);
  if (text === null) return null;
  let scripts: unknown;
  try {
    scripts = (JSON.parse(text) as { scripts?: unknown }).scripts;
  } catch {
    // A package.json that does not parse: npm refuses it too, nothing runs.
    return null;
  }
  if (typeof scripts !== "object" || scripts === null) return null;
  const table = scripts as Record<string, unknown>;
  return [`pre${name}`, name, `post${name}`]
    .map((key) => table[key])
    .filter((value): value is string => typeof value === "string")
    .join("\n");
}

function makeRecipes(args: string[], cwd: string): string | null {
  const fileFlag = args.findIndex((arg) => arg === "-f" || arg === "--file" || arg === "--makefile");
  const inline = args.find((arg) => arg.startsWith("--file=") || arg.startsWith("--makefile="));
  // Pass 11: `make -fevil.mk` (glued) names the Makefile too.
  const glued = args.find((arg) => /^-f./.test(arg))?.slice(2);
  const named = fileFlag >= 0 ? args[fileFlag + 1] : (inline?.slice(inline.indexOf("=") + 1) ?? glued);
  const candidates = named ? [named] : ["GNUmakefile", "makefile", "Makefile"];
  // `make SHELL='rm -rf ~'`, `make CC='rm -rf ~'`: variables set on the command line become recipe
  // text (SHELL runs every recipe), so their values are judged as shell too (pass 11).
  const assigned = args
    .filter((arg) => /^[A-Za-z_.][\w.]*[:+?]?=/.test(arg))
    .map((arg) => arg.slice(arg.indexOf("=") + 1));
  for (const file of candidates) {
    const text = readScript(file, cwd);
    if (text === null) continue;
    return [makefileRecipes(text), ...assigned].join("\n");
  }
  return assigned.length > 0 ? assigned.join("\n") : null;
}

/** The shell lines a Makefile's recipes run (tab-indented lines and `target: ; command`). */
export function makefileRecipes(text: string): string {
  const recipes: string[] = [];
  for (const line of text.split("\n")) {
    if (line.startsWith("\t")) recipes.push(line.slice(1).replace(/^[@+-]+/, ""));
    else {
      const rule = /^[^#=\t][^=]*?:[^=]*?;(.*)$/.exec(line);
      if (rule?.[1]) recipes.push(rule[1]);
    }
  }
  return recipes.join("\n");
}

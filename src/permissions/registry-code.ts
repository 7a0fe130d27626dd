import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type { Finding } from "./shell-words.js";

/**
 * Pass 12: package runners that download a package from a registry and run it (`npx evil`, `npm exec`,
 * `npm init x`, `pnpm dlx`, `yarn dlx`, `bunx`, `uvx`, `pipx run`, `deno run npm:x`, `go run x@v`).
 * Code nobody in the project chose runs on the user's machine; the sandbox holds it this time, but
 * what it is cannot be read before it runs, so a person decides (`command.registry-code`, never
 * `--yes`). A runner of a package the project declares (package.json) or has installed
 * (`node_modules/.bin`) is ordinary work: `npx vitest run`, `npx tsc` with TypeScript installed.
 */
export function registryCodeFinding(program: string, args: string[], cwd: string): Finding | null {
  const why = (what: string): Finding => ({
    decision: "ask",
    rule: "command.registry-code",
    reason: `${what} downloads a package the project does not declare and runs it; a person decides`,
  });
  const operands = args.filter((arg) => !arg.startsWith("-"));
  const sub = operands[0] ?? "";
  if (program === "npx" || program === "bunx") return npxRun(program, args, cwd, why);
  if (program === "npm" && /^(exec|x)$/.test(sub))
    return npxRun(`npm ${sub}`, args.slice(args.indexOf(sub) + 1), cwd, why);
  if (program === "bun" && sub === "x") return npxRun("bun x", args.slice(args.indexOf(sub) + 1), cwd, why);
  // `npm init vite` runs create-vite from the registry; a bare `npm init` only writes package.json.
  if (program === "npm" && /^(init|create|innit)$/.test(sub) && operands.length > 1)
    return why(`npm ${sub} ${operands[1]}`);
  if (/^(yarn|pnpm|bun)$/.test(program) && sub === "create") return why(`${program} create`);
  if ((program === "pnpm" || program === "yarn") && sub === "dlx") return why(`${program} dlx`);
  if (program === "pnpx" || program === "uvx" || (program === "gem" && sub === "exec")) return why(program);
  if (program === "uv" && sub === "tool" && operands[1] === "run") return why("uv tool run");
  if (program === "uv" && sub === "run" && args.some((arg) => /^--with(-requirements)?(=|$)/.test(arg)))
    return why("uv run --with");
  if (program === "pipx" && sub === "run") return why("pipx run");
  if (program === "deno" && /^(run|x|install|eval)$/.test(sub)) {
    const remote = args.find((arg) => /^(npm:|jsr:|https?:)/.test(arg));
    if (remote) return why(`deno ${sub} ${remote}`);
  }
  if (program === "go" && (sub === "run" || sub === "tool")) {
    const remote = operands.slice(1).find((arg) => /^[\w.-]+\.[a-z]+\/.*@/.test(arg));
    if (remote) return why(`go run ${remote}`);
  }
  return null;
}

/** npx-like runners: each package named (`-p X`, or the command itself) must be local or declared. */
function npxRun(label: string, args: string[], cwd: string, why: (what: string) => Finding): Finding | null {
  const packages: string[] = [];
  let command: string | undefined;
  for (let index = 0; index < args.length; index++) {
    const arg = args[index] as string;
    if (arg === "-p" || arg === "--package") {
      if (args[index + 1] !== undefined) packages.push(args[index + 1] as string);
      index += 1;
    } else if (arg.startsWith("--package=")) packages.push(arg.slice("--package=".length));
    else if (arg === "-c" || arg === "--call") index += 1;
    else if (arg === "--") {
      command = args[index + 1];
      break;
    } else if (!arg.startsWith("-")) {
      command = arg;
      break;
    }
  }
  const named = packages.length > 0 ? packages : command !== undefined ? [command] : [];
  for (const spec of named) if (!localPackage(spec, cwd)) return why(`${label} ${spec}`);
  return null;
}

/** A path, or a plain name the project declares or has installed (any package.json up from cwd). */
function localPackage(spec: string, cwd: string): boolean {
  if (/^(\.{1,2}\/|\/|file:)/.test(spec)) return true;
  // A version, a tag, a git or tarball address: npx fetches exactly that, whatever is installed.
  if (spec.lastIndexOf("@") > 0 || spec.includes(":")) return false;
  for (let dir = cwd, depth = 0; depth < 12; depth++) {
    if (existsSync(join(dir, "node_modules", ".bin", spec))) return true;
    if (declares(join(dir, "package.json"), spec)) return true;
    const parent = dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  return false;
}

function declares(packageJson: string, name: string): boolean {
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(packageJson, "utf8"));
  } catch {
    // Missing or not JSON: it declares nothing (npm refuses such a file too).
    return false;
  }
  if (typeof parsed !== "object" || parsed === null) return false;
  const table = parsed as Record<string, unknown>;
  return ["dependencies", "devDependencies", "optionalDependencies", "peerDependencies"].some((key) => {
    const section = table[key];
    return typeof section === "object" && section !== null && Object.hasOwn(section, name);
  });
}

import { writeFileSync } from "node:fs";
import { join } from "node:path";

/** A module hook that prints every module the process loads, so a test sees what a command pulls in. */
export function loadTracer(directory: string): Record<string, string> {
  const hook = join(directory, "trace-loads.mjs");
  const loader = `export async function load(url, context, next) { process.stderr.write("LOADED " + url + "\\n"); return next(url, context); }`;
  writeFileSync(
    hook,
    `import { register } from "node:module";\nregister("data:text/javascript," + encodeURIComponent(${JSON.stringify(loader)}));\n`,
  );
  return { NODE_OPTIONS: `--import=${hook}` };
}

/** The module URLs a traced process loaded, in order. */
export function loaded(stderr: string): string[] {
  return stderr
    .split("\n")
    .filter((line) => line.startsWith("LOADED "))
    .map((line) => line.slice("LOADED ".length));
}

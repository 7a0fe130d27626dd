#!/usr/bin/env node
import { readFileSync } from "node:fs";

/**
 * `--version` and the top-level help answer before the command-line parser or any command loads:
 * they are what people and scripts run most to check an install. The help text is the real program's,
 * written next to this file at build time (scripts/help-snapshot.mjs); without it (running from
 * source), the full program prints it.
 */
function quickAnswer(args: string[]): { text: string; stream: "stdout" | "stderr"; code: number } | null {
  if (args.length === 1 && (args[0] === "--version" || args[0] === "-V")) {
    const parsed: unknown = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));
    if (parsed && typeof parsed === "object" && "version" in parsed && typeof parsed.version === "string")
      return { text: `${parsed.version}\n`, stream: "stdout", code: 0 };
    return null;
  }
  const helpRequest = args.length === 1 && (args[0] === "--help" || args[0] === "-h" || args[0] === "help");
  if (!helpRequest && args.length !== 0) return null;
  let help: string;
  try {
    help = readFileSync(new URL("./help.txt", import.meta.url), "utf8");
  } catch {
    return null;
  }
  // Like commander: asked-for help goes to stdout (exit 0); no command at all is a usage error.
  return helpRequest ? { text: help, stream: "stdout", code: 0 } : { text: help, stream: "stderr", code: 2 };
}

const args = process.argv.slice(2);
const quick = quickAnswer(args);
// `memory add|search` with a plain command line run without the command-line parser (memory-fast.ts).
const fast =
  quick === null && args[0] === "memory"
    ? await (await import("./cli/commands/memory-fast.js")).runMemoryFast(args)
    : null;
if (quick) {
  process[quick.stream].write(quick.text);
  process.exitCode = quick.code;
} else if (fast !== null) {
  process.exitCode = fast;
} else {
  const { main } = await import("./cli/program.js");
  process.exitCode = await main(process.argv);
}

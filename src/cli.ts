#!/usr/bin/env node
import { readFileSync } from "node:fs";
import { tolerateClosedOutput } from "./cli/closed-output.js";

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

/**
 * `mercury run` sends its first model request as soon as it can. What it will load for that — the run
 * action with the application, and the AI SDK — starts loading now, beside the command-line parser,
 * instead of each after the one before (module files are read off the main thread, so the loads
 * overlap). A failed load is reported by the code that awaits the same module later; here it is
 * only marked as handled.
 */
function preloadRun(args: string[]): void {
  if (args.find((arg) => !arg.startsWith("-")) !== "run") return;
  if (args.some((arg) => arg === "--help" || arg === "-h")) return;
  import("./cli/commands/run-action.js").then(undefined, reportedLater);
  import("./model/attempt-loader.js").then((loader) => loader.preloadAttempt(), reportedLater);
}

function reportedLater(): void {}

const args = process.argv.slice(2);
// Before anything writes: a reader that leaves early (`| head -1`) ends output, not with a stack trace.
// `memory add|search` write to the descriptors themselves (closed-output.ts, writeDirect) and install
// this only when they hand the line to the full program.
if (args[0] !== "memory") tolerateClosedOutput();
const quick = quickAnswer(args);
if (quick === null) preloadRun(args);
// `memory add|search` and `run` with a plain command line run without the command-line parser
// (memory-fast.ts, run-fast.ts).
const fast =
  quick !== null
    ? null
    : args[0] === "memory"
      ? await (await import("./cli/commands/memory-fast.js")).runMemoryFast(args)
      : args[0] === "run"
        ? await (await import("./cli/commands/run-fast.js")).runFast(args)
        : null;
if (quick) {
  process[quick.stream].write(quick.text);
  process.exitCode = quick.code;
} else if (fast !== null && args[0] === "memory") {
  // Without closing the database: no WAL checkpoint, no heap teardown (memory-fast.ts).
  await (await import("./cli/commands/memory-fast.js")).exitWithoutClosing(fast);
} else if (fast !== null) {
  process.exitCode = fast;
} else {
  tolerateClosedOutput();
  const { main } = await import("./cli/program.js");
  process.exitCode = await main(process.argv);
}

import { resolve } from "node:path";
import type { Command } from "commander";
import { createTaskAuthorizer } from "../../app/authorization.js";
import { createApp } from "../../app/container.js";
import { createTerminalRenderer } from "../../channels/cli/renderer.js";
import { exitCodeForOutcome } from "../exit-codes.js";
import { configFlagsFrom, type GlobalFlags } from "../flags.js";
import { stderrColors } from "../terminal.js";

interface RunOptions extends GlobalFlags {
  json?: boolean;
  cwd?: string;
  session?: string;
  yes?: boolean;
}

export function registerRunCommand(program: Command): void {
  program
    .command("run")
    .description("run one task non-interactively and report how it ended")
    .argument("<task>", "what to do, in words")
    .option("--json", "print one JSON document with the outcome")
    .option("--cwd <dir>", "working directory for the task (default: current directory)")
    .option("--session <id>", "continue this session (its transcript is the context)")
    .option("--yes", "allow all actions for this run (hardline denials and secret paths still hold)")
    .action(async (task: string, options: RunOptions, command: Command) => {
      const flags = { ...command.optsWithGlobals<GlobalFlags>(), ...options };
      process.exitCode = await runTask(task, flags);
    });
}

async function runTask(task: string, options: RunOptions): Promise<number> {
  const app = createApp({ flags: configFlagsFrom(options) });
  const controller = new AbortController();
  const onSignal = () => controller.abort(new Error("interrupted by signal"));
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  try {
    const cwd = resolve(options.cwd ?? process.cwd());
    if (!options.json) {
      app.bus.subscribe(
        createTerminalRenderer(
          { text: (chunk) => process.stdout.write(chunk), info: (line) => process.stderr.write(`${line}\n`) },
          { colors: stderrColors(), showReceipts: app.config.memory.showReceipts },
        ),
      );
    }
    const sessionId = options.session;
    const report = await app.agent.run({
      userKey: "owner",
      channel: "cli",
      ...(sessionId ? { sessionId } : {}),
      input: task,
      cwd,
      signal: controller.signal,
      authorizerFor: (task) =>
        createTaskAuthorizer(app, { ...task, cwd, mode: options.yes ? "allow-all" : "refuse" }),
    });
    if (options.json) {
      process.stdout.write(
        `${JSON.stringify({
          outcome: report.outcome,
          endCause: report.endCause,
          text: app.redactor.redact(report.text),
          ...(report.reason ? { reason: app.redactor.redact(report.reason) } : {}),
          filesChanged: report.filesChanged,
          verification: report.verification,
          usage: report.usage,
          taskId: report.taskId,
          sessionId: report.sessionId,
        })}\n`,
      );
    }
    return exitCodeForOutcome(report.outcome);
  } finally {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
    app.close();
  }
}

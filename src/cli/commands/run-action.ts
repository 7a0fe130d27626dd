import { resolve } from "node:path";
import { createTaskAuthorizer } from "../../app/authorization.js";
import { createApp } from "../../app/container.js";
import { createTerminalRenderer } from "../../channels/cli/renderer.js";
import { userHomeOf, workspaceRefusal } from "../../sandbox/workspace.js";
import { exitCodeForOutcome, exitCodes } from "../exit-codes.js";
import { configFlagsFrom } from "../flags.js";
import { stderrColors } from "../terminal.js";
import type { RunOptions } from "./run.js";

export async function runTask(task: string, options: RunOptions): Promise<number> {
  const app = createApp({ flags: configFlagsFrom(options) });
  const controller = new AbortController();
  const onSignal = () => controller.abort(new Error("interrupted by signal"));
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  try {
    const cwd = resolve(options.cwd ?? process.cwd());
    // Commands may write the task's folder: the home folder or / would put everything in reach.
    const refusal = workspaceRefusal(cwd, userHomeOf(app.env), app.home);
    if (refusal) {
      process.stderr.write(`mercury: ${refusal}\n`);
      return exitCodes.usage;
    }
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

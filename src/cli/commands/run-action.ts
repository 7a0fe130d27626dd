import { createTaskAuthorizer } from "../../app/authorization.js";
import { composeApp, type MercuryApp } from "../../app/compose.js";
import { ConfigError } from "../../config/errors.js";
import { userHomeOf, workspaceRefusal } from "../../sandbox/workspace.js";
import { openCurrentDatabase } from "../../storage/connection.js";
import { existingFolder } from "../existing-folder.js";
import { exitCodeForOutcome } from "../exit-codes.js";
import { configFlagsFrom } from "../flags.js";
import { assertUsableProvider } from "../provider-guard.js";
import { taskWithStdin } from "../stdin.js";
import { stderrColors } from "../terminal.js";
import type { RunOptions } from "./run.js";
import { beginLedgerRun, finishLedgerRun } from "./run-ledger.js";
import { isErrorOutcome, streamEventsAsJson, trackRun } from "./run-output.js";

export async function runTask(taskArgument: string, options: RunOptions): Promise<number> {
  const output = outputMode(options);
  const settings = await assertUsableProvider(configFlagsFrom(options));
  // Before stdin is read or the database opened: a folder the task cannot run in is a usage error,
  // thrown so that `--json` still gets its document.
  const cwd = taskFolder(options.cwd, userHomeOf(settings.env), settings.home);
  const task = await taskWithStdin(taskArgument);
  // A current schema (every run but the first after an upgrade) opens without loading the migrations.
  const app = composeApp(await openCurrentDatabase(settings.paths.database), { settings });
  // The AI SDK and the provider's package load while the task is set up, not after it.
  const modelReady = app.chain.prepare();
  const controller = new AbortController();
  // The ledger records the stop at once: a second Ctrl-C ends the process before the run winds down,
  // and a task left "running" would be resumed by the next "continue" as if it had crashed.
  let recordStop: (() => void) | null = null;
  const onSignal = () => {
    // Ledger first: aborting kills the running command at once, and a kill -9 that follows the user's
    // Ctrl-C can land before the next line of this handler.
    recordStop?.();
    controller.abort(new Error("interrupted by signal"));
  };
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  const tracker = trackRun(app.bus);
  try {
    if (output === "text") {
      // The terminal renderer (and its Markdown library) only when text is printed.
      const { createTerminalRenderer } = await import("../../channels/cli/renderer.js");
      app.bus.subscribe(
        createTerminalRenderer(
          { text: (chunk) => process.stdout.write(chunk), info: (line) => process.stderr.write(`${line}\n`) },
          { colors: stderrColors(), showReceipts: app.config.memory.showReceipts },
        ),
      );
    }
    if (output === "stream-json") streamEventsAsJson(app.bus, app.redactor);
    const ledgerRun = beginLedgerRun(app, { input: task, cwd, sessionId: sessionToUse(app, options) });
    recordStop = () => ledgerRun.ledger.cancel(ledgerRun.taskId, "stopped by the user");
    // Loaded before the task starts, so the first step's stall watchdog never counts loading code:
    // a loaded machine stretches that load, not the model's silence (docs/DECISIONS.md).
    await modelReady;
    const report = await app.agent
      .run({
        userKey: "owner",
        channel: "cli",
        sessionId: ledgerRun.sessionId,
        taskId: ledgerRun.taskId,
        input: task,
        cwd,
        signal: controller.signal,
        ...(options.acceptCheckChanges ? { acceptCheckChanges: true } : {}),
        authorizerFor: (task) =>
          createTaskAuthorizer(app, { ...task, cwd, mode: options.yes ? "allow-all" : "refuse" }),
      })
      .catch((error: unknown) => {
        finishLedgerRun(ledgerRun, { error });
        throw error;
      });
    finishLedgerRun(ledgerRun, report);
    if (output !== "text") {
      const document = {
        ...(output === "stream-json" ? { type: "result" } : {}),
        outcome: report.outcome,
        endCause: report.endCause,
        isError: isErrorOutcome(report.outcome),
        text: app.redactor.redact(report.text),
        ...(report.reason ? { reason: app.redactor.redact(report.reason) } : {}),
        filesChanged: report.filesChanged,
        verification: report.verification,
        checksChanged: report.checksChanged,
        toolErrors: report.toolErrors.map((entry) => ({
          ...entry,
          error: app.redactor.redact(entry.error),
        })),
        usage: report.usage,
        durationMs: tracker.durationMs(),
        steps: tracker.steps(),
        taskId: report.taskId,
        sessionId: report.sessionId,
      };
      process.stdout.write(`${JSON.stringify(document)}\n`);
    }
    return exitCodeForOutcome(report.outcome);
  } finally {
    tracker.stop();
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
    app.close();
  }
}

/**
 * The task's folder: it must exist (a mistyped `--cwd` would otherwise run the task nowhere and report
 * success), and commands may write it, so the home folder or / would put everything in reach.
 */
function taskFolder(given: string | undefined, userHome: string, mercuryHome: string): string {
  const cwd = existingFolder(given ?? process.cwd());
  const refusal = workspaceRefusal(cwd, userHome, mercuryHome);
  if (refusal) throw new ConfigError(refusal);
  return cwd;
}

/** `--json` is one document at the end; `--output stream-json` is every event, then that document. */
function outputMode(options: RunOptions): "text" | "json" | "stream-json" {
  const format = options.output ?? (options.json ? "json" : "text");
  if (format !== "text" && format !== "json" && format !== "stream-json") {
    throw new ConfigError(`--output "${format}": expected text, json or stream-json.`);
  }
  if (options.json && format === "stream-json") {
    throw new ConfigError("--json and --output stream-json exclude each other; pick one.");
  }
  return format;
}

/** `--session ID`, or `--continue` for the latest terminal session, or a new session. */
function sessionToUse(app: MercuryApp, options: RunOptions): string | undefined {
  if (options.continue && options.session) {
    throw new ConfigError(
      "--continue and --session exclude each other: --continue picks the latest session.",
    );
  }
  if (!options.continue) return knownSession(app, options.session);
  const latest = app.agent.transcriptStore.latestSession("owner", "cli");
  if (!latest) throw new ConfigError("--continue: there is no earlier session to continue; run without it.");
  return latest;
}

/**
 * `--session ID` names a session that exists: a mistyped or stale id silently started a new session,
 * so "continue" there resumed nothing and the answer read as the old task's.
 */
function knownSession(app: MercuryApp, id: string | undefined): string | undefined {
  if (id === undefined) return undefined;
  if (app.agent.transcriptStore.getSession(id) !== null) return id;
  throw new ConfigError(
    `--session ${id}: no such session was found. \`mercury tasks\` lists tasks with their session ids; \`mercury run --continue\` continues the latest terminal session.`,
  );
}

import { resolve } from "node:path";
import { z } from "zod";
import type { ToolCallRequest } from "../../model/types.js";
import { parseExitCode } from "../../tools/run-command.js";
import type { ToolContext } from "../../tools/types.js";
import type { LoopDependencies } from "../loop-types.js";
import type { TaskState } from "../state.js";
import { uncheckedDelegation } from "../subagents/unchecked.js";
import { type ExecutedCall, executeToolCall, toolResultMessage } from "../tool-executor.js";
import type { VerificationRun } from "./gate.js";
import { checkedFingerprint, recordedNow } from "./run-records.js";
import { readTestOutput } from "./test-summary.js";
import { isVerificationCommand, type VerificationCommand } from "./verification.js";
import type { StallWatchdog } from "./watchdog.js";

const verificationTimeoutMs = 600_000;
const commandInput = z.object({ command: z.string(), cwd: z.string().optional() }).loose();
const planInput = z.object({ items: z.array(z.object({ text: z.string(), done: z.boolean() })) }).loose();

/**
 * Executes the model's tool calls for the loop and keeps the task's facts: what may have changed
 * files (and when), verification runs with their real exit codes, the plan, the last failure.
 */
export class ToolRunner {
  private verification: VerificationCommand | null | undefined;
  private agentCalls = 0;

  constructor(
    private readonly deps: LoopDependencies,
    private readonly state: TaskState,
    private readonly watchdog: StallWatchdog,
    private readonly signal: AbortSignal,
  ) {}

  async run(call: ToolCallRequest, step: number): Promise<void> {
    const { deps, state } = this;
    deps.emit({ type: "tool-call", callId: call.callId, toolName: call.toolName, input: call.input });
    const tool = deps.tools.find((candidate) => candidate.name === call.toolName);
    const verification = call.toolName === "run_command" ? this.verificationOf(call.input) : null;
    const mayChange = tool?.mutating === true || mayChangeUnannounced(call.toolName);
    if (mayChange) await this.beginTracking();
    const sequence = ++state.callSequence;
    if (mayChange && !verification) {
      // Recorded (and saved) before the call runs: a crash in the middle of it leaves files changed
      // that no later record mentions, and an earlier passing run must not pass for evidence then.
      state.lastChangeSequence = sequence;
      deps.recordEvidence?.();
    }
    // The files a check starts on are the ones its result is for (see fresh-check.ts).
    const before = verification ? await this.fingerprint() : null;
    const executed = await executeToolCall(call, deps.tools, this.context(call.callId));
    this.watchdog.touch();
    const output = executed.result.ok ? executed.result.output : executed.result.error;
    deps.emit({
      type: "tool-result",
      callId: call.callId,
      toolName: call.toolName,
      ok: executed.result.ok,
      output,
    });
    if (verification && refused(executed))
      state.uncheckedClaims.push({
        sequence,
        why: `the verification \`${verification.command}\` was refused and never ran`,
      });
    if (call.toolName === "delegate_task" && !executed.result.ok) {
      const unchecked = uncheckedDelegation(executed.result.error);
      // An unfinished child's work is a change that failed: no later check of the parent's bears it out.
      if (unchecked)
        state.uncheckedClaims.push({
          sequence,
          why: unchecked.why,
          ...(unchecked.unfinished ? { change: true as const } : {}),
        });
    }
    // A check the user (or the watchdog) stopped has no result: recorded, its "did not finish" read as
    // a failure after "continue", and a task whose files pass ended "failed" (session 12).
    if (verification && !refused(executed) && !this.signal.aborted) {
      const fingerprint = checkedFingerprint(before, await this.fingerprint());
      const exitCode = parseExitCode(output);
      const says = exitCode === 0 ? readTestOutput(output) : null;
      state.verifications.push(
        recordedNow({
          command: verification.command,
          exitCode,
          sequence,
          ...(fingerprint ? { fingerprint } : {}),
          ...(says ? { outputSays: says } : {}),
        }),
      );
    }
    if (executed.result.ok && executed.tool?.mutating) {
      state.mutatingSuccesses += 1;
      state.lastMutationStep = step;
    }
    if (executed.result.ok && call.toolName === "update_plan") {
      const plan = planInput.safeParse(call.input);
      if (plan.success)
        state.setPlan(plan.data.items.map((item) => ({ text: item.text.trim(), done: item.done })));
    }
    if (!executed.result.ok && tool?.mutating && !verification && call.toolName !== "delegate_task")
      // A change that failed: an answer that says it was made is not borne out by the files.
      state.uncheckedClaims.push({
        sequence,
        why: `${call.toolName} failed (${firstLine(executed.result.error)})`,
        // A later passing check does not bear out a change that was not made (a refused write). A
        // command's exit 1 may be a read's answer (`grep` found nothing): that one a check may follow.
        ...(call.toolName !== "run_command" || refused(executed) ? { change: true as const } : {}),
      });
    if (!executed.result.ok) {
      state.lastToolFailure = { toolName: call.toolName, error: executed.result.error, step };
      state.toolErrors.push(state.lastToolFailure);
    }
    state.append(deps.persist([toolResultMessage(executed)]));
    deps.recordEvidence?.();
  }

  /** The agent's own verification run, through the same tool and authorizer as the model's. */
  async verify(command: string, step: number): Promise<VerificationRun> {
    // Test suites often outlast the default command limit; ask for the longest the tool allows.
    let executed = await this.agentCall("run_command", { command, timeoutMs: verificationTimeoutMs }, step);
    if (
      executed &&
      !executed.result.ok &&
      executed.result.error.startsWith(`timeoutMs ${verificationTimeoutMs} is above`)
    )
      executed = await this.agentCall("run_command", { command }, step);
    if (!executed)
      return { refused: "no run_command tool is available to run it", exitCode: null, output: "" };
    const output = executed.result.ok ? executed.result.output : executed.result.error;
    if (refused(executed)) return { refused: output, exitCode: null, output };
    if (this.signal.aborted) return { interrupted: true, exitCode: null, output };
    return { exitCode: parseExitCode(output), output };
  }

  /** Grounding for the narration guard: the workspace as list_dir sees it (through the authorizer). */
  async listWorkspace(step: number): Promise<string> {
    const executed = await this.agentCall("list_dir", { path: "." }, step);
    if (!executed) return "(no list_dir tool is available)";
    return executed.result.ok ? executed.result.output : `(listing failed: ${executed.result.error})`;
  }

  private async agentCall(toolName: string, input: unknown, step: number): Promise<ExecutedCall | null> {
    if (!this.deps.tools.some((tool) => tool.name === toolName)) return null;
    this.agentCalls += 1;
    const callId = `mercury-${step}-${this.agentCalls}`;
    this.deps.emit({ type: "tool-call", callId, toolName, input });
    const executed = await executeToolCall(
      { callId, toolName, input },
      this.deps.tools,
      this.context(callId),
    );
    this.watchdog.touch();
    const output = executed.result.ok ? executed.result.output : executed.result.error;
    this.deps.emit({ type: "tool-result", callId, toolName, ok: executed.result.ok, output });
    return executed;
  }

  /** The verification, when this run_command input is exactly it, run in the task's directory. */
  private verificationOf(input: unknown): VerificationCommand | null {
    const parsed = commandInput.safeParse(input);
    if (!parsed.success) return null;
    const base = this.deps.toolContext("verification-check").cwd;
    // The same command in another directory (another project) proves nothing about this one.
    if (parsed.data.cwd !== undefined && resolve(base, parsed.data.cwd) !== resolve(base)) return null;
    return this.verificationFor(parsed.data.command);
  }

  private verificationFor(command: string): VerificationCommand | null {
    if (this.verification === undefined) {
      try {
        this.verification = this.deps.verification?.() ?? null;
      } catch (error) {
        // The gate reports the broken project file when the task ends; here it only means "not a verification".
        this.deps.emit({
          type: "notice",
          level: "warn",
          message: `verification lookup failed: ${String(error)}`,
        });
        this.verification = null;
      }
    }
    return this.verification && isVerificationCommand(command, this.verification) ? this.verification : null;
  }

  /** The task's files now (after a verification run), when a baseline exists to compare with. */
  async fingerprint(): Promise<string | null> {
    const changes = this.deps.changes;
    if (!changes || this.state.lastChangeSequence < 0) return null;
    // changes.js (the tracker's diff) loads with the task's first change, not with the runner.
    const [report, { workspaceFingerprint }] = await this.watchdog.whileWaiting(() =>
      Promise.all([changes.report(), import("./changes.js")]),
    );
    return workspaceFingerprint(report);
  }

  private async beginTracking(): Promise<void> {
    if (!this.deps.changes) return;
    await this.watchdog.whileWaiting(() =>
      (this.deps.changes as NonNullable<LoopDependencies["changes"]>).begin(),
    );
  }

  private context(callId: string): ToolContext {
    const base = this.deps.toolContext(callId);
    const watchdog = this.watchdog;
    return {
      ...base,
      signal: this.signal,
      reportActivity: (detail) => {
        watchdog.touch();
        base.reportActivity(detail);
      },
      authorize: (request) => watchdog.whileWaiting(() => base.authorize(request)),
      ...(base.askUser
        ? {
            askUser: (question: string, choices?: string[]) =>
              watchdog.whileWaiting(() =>
                (base.askUser as NonNullable<ToolContext["askUser"]>)(question, choices),
              ),
          }
        : {}),
    };
  }
}

/**
 * An MCP tool's read-only mark is its server's word: it decides what the permission engine asks, not
 * whether the gate looks at the files. A server that marks a writing tool read-only otherwise ended a
 * task `responded` with files changed and no check run (session 10).
 */
function mayChangeUnannounced(toolName: string): boolean {
  return toolName.startsWith("mcp__");
}

function firstLine(text: string): string {
  const line = text.split("\n")[0] ?? "";
  return line.length > 160 ? `${line.slice(0, 160)}…` : line;
}

function refused(executed: ExecutedCall): boolean {
  return !executed.result.ok && executed.result.error.startsWith("Permission denied");
}

import { randomUUID } from "node:crypto";
import { ProviderChain } from "../model/chain.js";
import type { ModelMessage, ModelStepper } from "../model/types.js";
import type { SqliteDatabase } from "../storage/database.js";
import { TranscriptStore } from "../storage/transcripts.js";
import { UsageStore } from "../storage/usage.js";
import type { AnyTool, AuthorizationRequest, AuthorizationResult } from "../tools/types.js";
import { type BudgetCheck, type BudgetLimits, checkBudget } from "./budget.js";
import { type Clock, systemClock } from "./clock.js";
import type { CheckChange } from "./completion/check-changes.js";
import type { HeapGovernorSettings } from "./completion/compaction.js";
import type { StallSettings } from "./completion/watchdog.js";
import { unfinishedInSession } from "./earlier-task.js";
import type {
  AgentEvent,
  AgentEventBody,
  EndCause,
  EventBus,
  FileChange,
  Outcome,
  UsageTotals,
  VerificationRecord,
} from "./events.js";
import { TaskEvidenceStore } from "./evidence.js";
import { WorkLedger } from "./ledger.js";
import { closeDanglingToolCalls } from "./ledger-repair.js";
import { type LoopResult, runAgentLoop, type ToolErrorRecord } from "./loop.js";
import { TaskState } from "./state.js";
import { wireTaskEvidence } from "./task-evidence.js";
import { claimTask } from "./task-owner.js";

export interface TaskRequest {
  userKey: string;
  channel: string;
  /** Continue this session; a new one is created when absent or unknown. */
  sessionId?: string;
  input: string;
  cwd: string;
  signal: AbortSignal;
  /** A task id chosen by the caller (the work ledger), so a resumed task keeps its id; new otherwise. */
  taskId?: string;
  /** Builds the permission check for this task (permissions are per task, carried explicitly). */
  authorizerFor(task: TaskIdentity): (request: AuthorizationRequest) => Promise<AuthorizationResult>;
  askUser?(question: string, choices?: string[]): Promise<string>;
  /** The user approved, up front, changes the task makes to its own checks (--accept-check-changes). */
  acceptCheckChanges?: boolean;
  /** A narrower tool list for this task (scheduled runs, sub-agents); the agent's own otherwise. */
  tools?: readonly AnyTool[];
  /** A budget of this task on top of the daily caps (a scheduled job's, a parent's). */
  checkBudget?: () => BudgetCheck;
  /**
   * Earlier work this task follows that did not end, said beside a plain answer ("the job's previous
   * run … is failed …"): a scheduled run has a session of its own, so the session's latest other
   * task (WorkLedger.unfinishedBefore, used when this is absent) never names the job's last run.
   */
  unfinishedBefore?: string;
}

export interface TaskIdentity {
  taskId: string;
  sessionId: string;
  userKey: string;
  /** The task's abort signal: a wait for approval ends when the task is stopped. */
  signal: AbortSignal;
}

export interface TaskReport {
  taskId: string;
  sessionId: string;
  outcome: Outcome;
  endCause: EndCause;
  text: string;
  reason?: string;
  usage: UsageTotals;
  filesChanged: FileChange[];
  verification: VerificationRecord[];
  /** Changes the task made to how it is checked (test scripts, runner config, existing tests). */
  checksChanged: CheckChange[];
  /** Every tool call of this run that failed. */
  toolErrors: ToolErrorRecord[];
}

export interface AgentSettings {
  home: string;
  maxSteps: number;
  maxOutputTokens: number;
  contextWindow: number;
  historyReserveTokens: number;
  budget: BudgetLimits;
  /** Stall watchdog (MERCURY_STALL_SOFT_MS / MERCURY_STALL_HARD_MS); defaults 3 min / 8 min. */
  stall?: StallSettings;
  /** The project's verification command; detected from the project files when absent. */
  verifyCommand?: string | null;
  /** Memory governor; defaults to 80% of V8's heap limit (tests inject a fake heap). */
  heap?: HeapGovernorSettings;
}

export interface AgentHooks {
  /** Builds the system prompt for a task (soul files are read fresh each time). */
  systemPrompt(context: {
    userKey: string;
    input: string;
    cwd: string;
    toolNames: string[];
  }): Promise<string>;
  /**
   * The tools one task gets, from the agent's own (skills add activate_skill and narrow by
   * allowed-tools per task). The agent's tools are used as they are when absent.
   */
  taskTools?(
    tools: readonly AnyTool[],
    context: { cwd: string; userKey: string; taskId: string },
  ): AnyTool[] | Promise<AnyTool[]>;
  /** After a task ends (memory extraction, ledger); failures are reported as notices, never dropped. */
  afterTask?(report: TaskReport, messages: ModelMessage[], userKey: string): Promise<void>;
}

/**
 * Runs tasks: loads the session's transcript, runs the loop, persists every message, records usage.
 * One task per session at a time; a message for a busy session steers the running task.
 */
export class Agent {
  private readonly transcripts: TranscriptStore;
  readonly usage: UsageStore;
  private readonly steering = new Map<string, string[]>();
  private readonly evidence: TaskEvidenceStore;

  constructor(
    readonly database: SqliteDatabase,
    private readonly model: ModelStepper,
    private readonly tools: readonly AnyTool[],
    private readonly bus: EventBus,
    private readonly settings: AgentSettings,
    private readonly hooks: AgentHooks,
    private readonly clock: Clock = systemClock,
  ) {
    const now = () => this.clock.now();
    this.transcripts = new TranscriptStore(database, now);
    this.usage = new UsageStore(database, now);
    this.evidence = new TaskEvidenceStore(database, this.clock);
  }

  get transcriptStore(): TranscriptStore {
    return this.transcripts;
  }

  isRunning(sessionId: string): boolean {
    return this.steering.has(sessionId);
  }

  /** Queues a message into the running task of this session; false when nothing runs there. */
  steer(sessionId: string, text: string): boolean {
    const queue = this.steering.get(sessionId);
    if (!queue) return false;
    queue.push(text);
    return true;
  }

  async run(request: TaskRequest): Promise<TaskReport> {
    const sessionId =
      request.sessionId && this.transcripts.getSession(request.sessionId)
        ? request.sessionId
        : this.transcripts.createSession(request.userKey, request.channel, request.sessionId);
    if (this.steering.has(sessionId)) {
      throw new Error(
        `session ${sessionId} already has a running task; send the message as steering instead`,
      );
    }
    const taskId = request.taskId ?? randomUUID();
    const emit = (body: AgentEventBody) =>
      this.bus.emit({
        ...body,
        taskId,
        sessionId,
        userKey: request.userKey,
        at: this.clock.now().toISOString(),
      } as AgentEvent);
    this.steering.set(sessionId, []);
    const releaseClaim = claimTask(this.settings.home, taskId);
    let stopWatchingForgets = () => {};
    try {
      emit({ type: "task-start", input: request.input });
      const history = this.transcripts.load(sessionId);
      // A process killed between a tool call and its result left the call unanswered, and providers
      // refuse such a history: every process that opens a session closes them honestly first.
      const repair = closeDanglingToolCalls(history.map((stored) => stored.message));
      if (repair.length > 0) history.push(...this.transcripts.append(sessionId, taskId, repair));
      const state = new TaskState(taskId, sessionId, request.userKey, history);
      const evidence = wireTaskEvidence(
        {
          store: this.evidence,
          taskId,
          cwd: request.cwd,
          home: this.settings.home,
          configuredVerification: this.settings.verifyCommand,
          acceptCheckChanges: request.acceptCheckChanges,
          askUser: request.askUser,
        },
        state,
      );
      const earlier =
        request.unfinishedBefore ??
        unfinishedInSession(new WorkLedger(this.database, this.clock), this.evidence, sessionId, taskId);
      if (earlier) state.uncheckedClaims.push({ sequence: 0, why: earlier });
      state.append(this.transcripts.append(sessionId, taskId, [{ role: "user", content: request.input }]));
      // A narrowed list (scheduled run, sub-agent) is final; otherwise the task's hooks (skills) shape it.
      const tools =
        request.tools ??
        (this.hooks.taskTools
          ? await this.hooks.taskTools(this.tools, { cwd: request.cwd, userKey: request.userKey, taskId })
          : this.tools);
      const toolNames = tools.map((tool) => tool.name);
      const systemPrompt = await this.hooks.systemPrompt({
        userKey: request.userKey,
        input: request.input,
        cwd: request.cwd,
        toolNames,
      });
      const systemTokens = Math.ceil(systemPrompt.length / 4);
      // A memory forgotten during the task (the memory_forget tool, the CLI, the dashboard) must not
      // ride along in this task's later steps: the loop reloads the redacted turns and the prompt.
      let forgotten = false;
      stopWatchingForgets = this.bus.subscribe((event) => {
        if (
          event.type === "memory-receipt" &&
          event.kind === "forgotten" &&
          event.userKey === request.userKey
        ) {
          forgotten = true;
        }
      });
      const afterForget = async () => {
        if (!forgotten) return null;
        forgotten = false;
        // The whole session as now stored: a summary made from the old turns (never stored) goes too,
        // and the context governor summarizes the redacted turns again if they do not fit.
        return {
          history: this.transcripts.load(sessionId),
          systemPrompt: await this.hooks.systemPrompt({
            userKey: request.userKey,
            input: request.input,
            cwd: request.cwd,
            toolNames,
          }),
        };
      };
      const authorize = request.authorizerFor({
        taskId,
        sessionId,
        userKey: request.userKey,
        signal: request.signal,
      });
      const result: LoopResult = await runAgentLoop(
        {
          model: this.model,
          tools,
          systemPrompt,
          afterForget,
          maxSteps: this.settings.maxSteps,
          maxOutputTokens: this.settings.maxOutputTokens,
          historyBudgetTokens: Math.max(
            1024,
            this.settings.contextWindow - this.settings.historyReserveTokens - systemTokens,
          ),
          signal: request.signal,
          emit,
          persist: (messages) => this.transcripts.append(sessionId, taskId, messages),
          recordUsage: (attempts) => this.usage.record(attempts, sessionId, taskId),
          checkBudget: () => {
            const daily = checkBudget(this.settings.budget, this.usage.today());
            return daily.ok && request.checkBudget ? request.checkBudget() : daily;
          },
          takeSteering: () => this.steering.get(sessionId)?.splice(0) ?? [],
          toolContext: () => ({
            signal: request.signal,
            cwd: request.cwd,
            sessionId,
            taskId,
            userKey: request.userKey,
            home: this.settings.home,
            authorize,
            reportActivity: () => undefined,
            availableTools: toolNames,
            ...(request.askUser ? { askUser: request.askUser } : {}),
          }),
          ...(this.settings.stall ? { stall: this.settings.stall } : {}),
          ...(this.settings.heap ? { heap: this.settings.heap } : {}),
          ...evidence.deps,
          rotatedModel: (offset) => rotatedModel(this.model, offset),
          ...(request.askUser ? { askUser: request.askUser } : {}),
        },
        state,
      );
      const report: TaskReport = {
        taskId,
        sessionId,
        outcome: result.outcome,
        endCause: result.endCause,
        text: result.text,
        ...(result.reason ? { reason: result.reason } : {}),
        usage: { ...state.usage },
        filesChanged: result.filesChanged,
        verification: result.verification,
        checksChanged: result.checksChanged,
        toolErrors: result.toolErrors,
      };
      emit({
        type: "task-end",
        outcome: report.outcome,
        endCause: report.endCause,
        text: report.text,
        ...(report.reason ? { reason: report.reason } : {}),
        usage: report.usage,
        filesChanged: report.filesChanged,
        verification: report.verification,
      });
      if (this.hooks.afterTask) {
        try {
          await this.hooks.afterTask(report, state.ownMessages(), request.userKey);
        } catch (error) {
          emit({ type: "notice", level: "error", message: `after-task work failed: ${String(error)}` });
        }
      }
      return report;
    } finally {
      stopWatchingForgets();
      releaseClaim();
      this.steering.delete(sessionId);
    }
  }
}

/**
 * The same chain started at another provider, when the model is a chain of more than one. The n-th
 * rotation cycles through the other providers, never back to the first.
 */
function rotatedModel(model: ModelStepper, rotation: number): ModelStepper | null {
  const size = model.describe().length;
  if (size < 2 || !(model instanceof ProviderChain)) return null;
  return model.rotated(1 + ((Math.max(1, rotation) - 1) % (size - 1)));
}

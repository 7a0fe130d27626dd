import type { AgentEvent, AgentEventBody } from "../../../src/agent/events.js";
import { EventBus } from "../../../src/agent/events.js";
import type {
  AgentGateway,
  ApprovalDecision,
  ChannelInput,
  GatewayStatus,
} from "../../../src/channels/types.js";

/**
 * An AgentGateway that records what the channel asks for and emits the events a test scripts.
 * `onSubmit` runs synchronously inside submit(), before it resolves, like a runtime that emits
 * task-start at once: the channel must route events it sees before knowing the task id.
 */
export class FakeGateway implements AgentGateway {
  readonly bus = new EventBus();
  readonly submits: ChannelInput[] = [];
  readonly approvals: { approvalId: string; decision: ApprovalDecision; answeredBy: string }[] = [];
  readonly answers: { questionId: string; answer: string; answeredBy: string }[] = [];
  readonly stops: string[] = [];
  readonly newSessions: string[] = [];
  onSubmit: ((input: ChannelInput, task: TaskHandle) => void) | null = null;
  /** submit() for these userKeys never resolves: a stuck runtime. */
  readonly hangingUsers = new Set<string>();
  private counter = 0;

  async submit(input: ChannelInput): Promise<{ taskId: string; sessionId: string }> {
    this.submits.push(input);
    if (this.hangingUsers.has(input.userKey)) return new Promise(() => undefined);
    this.counter += 1;
    const task = new TaskHandle(this.bus, `task-${this.counter}`, `session-${input.userKey}`, input.userKey);
    task.emit({ type: "task-start", input: input.text });
    this.onSubmit?.(input, task);
    return { taskId: task.taskId, sessionId: task.sessionId };
  }

  subscribe(listener: (event: AgentEvent) => void): () => void {
    return this.bus.subscribe(listener);
  }

  async stop(userKey: string): Promise<boolean> {
    this.stops.push(userKey);
    return true;
  }

  async newSession(userKey: string): Promise<string> {
    this.newSessions.push(userKey);
    return `session-new-${this.newSessions.length}`;
  }

  async status(): Promise<GatewayStatus> {
    return {
      provider: "fake",
      model: "fake-model",
      sessionId: "session-1",
      runningTaskId: null,
      budget: { tokensToday: 1234, dailyTokenLimit: 100000, costToday: 0.0123, dailyUsdLimit: 2 },
      allowAllUntil: null,
    };
  }

  async answerApproval(approvalId: string, decision: ApprovalDecision, answeredBy: string): Promise<void> {
    this.approvals.push({ approvalId, decision, answeredBy });
  }

  async answerQuestion(questionId: string, answer: string, answeredBy: string): Promise<void> {
    this.answers.push({ questionId, answer, answeredBy });
  }

  /** A task the test drives by hand (e.g. a task for a user that did not come through submit). */
  task(taskId: string, userKey: string): TaskHandle {
    return new TaskHandle(this.bus, taskId, `session-${userKey}`, userKey);
  }
}

export class TaskHandle {
  constructor(
    private readonly bus: EventBus,
    readonly taskId: string,
    readonly sessionId: string,
    readonly userKey: string,
  ) {}

  emit(body: AgentEventBody): void {
    this.bus.emit({
      ...body,
      taskId: this.taskId,
      sessionId: this.sessionId,
      userKey: this.userKey,
      at: new Date().toISOString(),
    } as AgentEvent);
  }

  end(
    text: string,
    outcome: "responded" | "completed" | "paused" | "failed" | "cancelled" = "responded",
  ): void {
    this.emit({
      type: "task-end",
      outcome,
      endCause: "text-stop",
      text,
      usage: { inputTokens: 1, outputTokens: 1, costUsd: 0 },
      filesChanged: [],
      verification: [],
    });
  }
}

import type { AgentEvent } from "../agent/events.js";

/**
 * What a channel (CLI, Telegram) needs from the running agent. Channels subscribe to events and
 * submit input; the agent never calls a channel.
 */
export interface AgentGateway {
  /** Start a task, or steer the running one for this user's session. Returns the task id. */
  submit(input: ChannelInput): Promise<{ taskId: string; sessionId: string }>;
  subscribe(listener: (event: AgentEvent) => void): () => void;
  /** Abort the user's running task (cancelled in the ledger). */
  stop(userKey: string): Promise<boolean>;
  /** Start a fresh session for the user; returns the new session id. */
  newSession(userKey: string, channel: string): Promise<string>;
  status(userKey: string): Promise<GatewayStatus>;
  answerApproval(approvalId: string, decision: ApprovalDecision, answeredBy: string): Promise<void>;
  answerQuestion(questionId: string, answer: string, answeredBy: string): Promise<void>;
}

export type ApprovalDecision = "once" | "session" | "always" | "deny";

export interface ChannelInput {
  userKey: string;
  channel: string;
  text: string;
  attachments?: { path: string; kind: "photo" | "document"; name: string }[];
}

export interface GatewayStatus {
  provider: string;
  model: string;
  sessionId: string | null;
  runningTaskId: string | null;
  budget: {
    tokensToday: number;
    dailyTokenLimit: number | null;
    costToday: number;
    dailyUsdLimit: number | null;
  };
  allowAllUntil: string | null;
}

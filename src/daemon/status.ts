import { z } from "zod";
import type { LedgerTask, WorkLedger } from "../agent/ledger.js";
import type { DeliveryLedger } from "../agent/ledger-deliveries.js";
import type { MercuryApp } from "../app/container.js";
import type { DaemonGateway } from "../channels/gateway.js";
import { detectSandbox } from "../sandbox/detect.js";
import type { SandboxStatus } from "../sandbox/types.js";
import type { ChannelStatus } from "./supervisor.js";

export interface DaemonStatus {
  running: true;
  pid: number;
  startedAt: string;
  uptimeSeconds: number;
  version: string;
  home: string;
  socket: string;
  channels: ChannelStatus[];
  tasks: {
    active: TaskSummary[];
    paused: TaskSummary[];
    counts: Record<string, number>;
  };
  pendingApprovals: { id: string; userKey: string; summary: string; expiresAt: string }[];
  /** Members' approvals are counted, not shown: their summaries are theirs. */
  pendingMemberApprovals: number;
  pendingDeliveries: number;
  budget: { tokensToday: number; costUsdToday: number; dailyTokens: number | null; dailyUsd: number | null };
  unhandledRejections: number;
  /** The OS sandbox commands run in, or why there is none. */
  sandbox: SandboxStatus;
}

export interface TaskSummary {
  id: string;
  userKey: string;
  channel: string;
  status: string;
  input: string;
  reason: string | null;
  resumes: number;
  continuations: number;
  updatedAt: string;
}

function summarize(task: LedgerTask): TaskSummary {
  return {
    id: task.id,
    userKey: task.userKey,
    channel: task.channel,
    status: task.status,
    input: task.input.length > 200 ? `${task.input.slice(0, 199)}…` : task.input,
    reason: task.reason,
    resumes: task.resumes,
    continuations: task.continuations,
    updatedAt: task.updatedAt,
  };
}

export function buildStatus(parts: {
  app: MercuryApp;
  ledger: WorkLedger;
  deliveries: DeliveryLedger;
  gateway: DaemonGateway;
  channels: ChannelStatus[];
  startedAt: Date;
  version: string;
  unhandledRejections: number;
}): DaemonStatus {
  const { app, ledger } = parts;
  const today = app.agent.usage.today();
  const pending = app.approvals.pendingFor("owner");
  const others = app.database
    .prepare("SELECT COUNT(*) AS n FROM approvals WHERE status = 'pending' AND user_key != 'owner'")
    .get();
  const othersCount = z.object({ n: z.number().int() }).parse(others).n;
  return {
    running: true,
    pid: process.pid,
    startedAt: parts.startedAt.toISOString(),
    uptimeSeconds: Math.max(0, Math.round((Date.now() - parts.startedAt.getTime()) / 1000)),
    version: parts.version,
    home: app.home,
    socket: app.paths.socket,
    channels: parts.channels,
    tasks: {
      active: ledger.list({ statuses: ["queued", "running"] }).map(summarize),
      paused: ledger.list({ statuses: ["paused"], limit: 20 }).map(summarize),
      counts: ledger.counts(),
    },
    pendingApprovals: pending.map((record) => ({
      id: record.id,
      userKey: record.user_key,
      summary: record.summary,
      expiresAt: record.expires_at,
    })),
    pendingMemberApprovals: othersCount,
    pendingDeliveries: parts.deliveries.pending().length,
    budget: {
      tokensToday: today.tokens,
      costUsdToday: today.costUsd,
      dailyTokens: app.config.budget.dailyTokens,
      dailyUsd: app.config.budget.dailyUsd,
    },
    unhandledRejections: parts.unhandledRejections,
    sandbox: detectSandbox(),
  };
}

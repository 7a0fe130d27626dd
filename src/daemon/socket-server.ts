import { chmodSync, unlinkSync } from "node:fs";
import { createServer, type Server, type Socket } from "node:net";
import type { AgentEvent } from "../agent/events.js";
import type { LedgerTask, WorkLedger } from "../agent/ledger.js";
import type { DeliveryLedger } from "../agent/ledger-deliveries.js";
import type { Logger } from "../app/logger.js";
import type { DaemonGateway } from "../channels/gateway.js";
import { errorFields } from "./error-fields.js";
import { isCode } from "./lock.js";
import {
  type ChatRequest,
  type ClientMessage,
  clientMessage,
  LineReader,
  type ServerMessage,
} from "./protocol.js";

/** Socket clients are the machine's owner: the socket's 0600 mode keeps everyone else out. */
export const socketUserKey = "owner";
export const socketChannel = "cli";
/** Delivery target of answers to tasks submitted from the terminal. */
export const terminalTarget = "terminal";

export interface SocketServerOptions {
  path: string;
  gateway: DaemonGateway;
  ledger: WorkLedger;
  deliveries: DeliveryLedger;
  logger: Logger;
  status(): unknown;
  /** The owner's approvals still waiting (after a restart too), asked again of a terminal that attaches. */
  pendingApprovals(): AgentEvent[];
  /** Sub-agents (`mercury agents list|stop`). */
  agents?: { list(): unknown[]; stop(agentId: string): boolean };
  /** The attached chat's /model, /resume and /undo (src/daemon/chat-requests.ts). */
  chat?: (request: ChatRequest) => Promise<unknown>;
  /** The web dashboard's controls (src/dashboard/control.ts). */
  dashboard?: (request: Extract<ClientMessage, { type: "dashboard" }>) => Promise<unknown>;
}

interface Client {
  socket: Socket;
  subscribed: boolean;
}

/**
 * The daemon's local socket: newline-delimited JSON requests (submit, subscribe, stop, status,
 * approvals, answers), the owner's events streamed to subscribers, and final answers delivered once.
 */
export class SocketServer {
  private server: Server | null = null;
  private readonly clients = new Set<Client>();
  private readonly unsubscribers: (() => void)[] = [];

  constructor(readonly options: SocketServerOptions) {}

  async listen(): Promise<void> {
    const { path } = this.options;
    // sun_path holds 104 (macOS) to 108 (Linux) bytes; past that listen() fails with a bare EINVAL.
    if (Buffer.byteLength(path) > 103) {
      throw new Error(
        `the socket path ${path} is longer than Unix sockets allow (103 bytes); set MERCURY_HOME to a shorter directory`,
      );
    }
    // The daemon holds the instance lock, so a socket file here was left by a crashed predecessor.
    try {
      unlinkSync(path);
    } catch (error) {
      if (!isCode(error, "ENOENT")) throw error;
    }
    const server = createServer((socket) => this.accept(socket));
    const previousUmask = process.umask(0o177);
    try {
      await new Promise<void>((resolve, reject) => {
        server.once("error", reject);
        server.listen(path, () => {
          server.off("error", reject);
          resolve();
        });
      });
    } finally {
      process.umask(previousUmask);
    }
    chmodSync(path, 0o600);
    server.on("error", (error) =>
      this.options.logger.error({ ...errorFields(error) }, "socket server error"),
    );
    this.server = server;
    this.unsubscribers.push(
      this.options.gateway.subscribe((event) => this.broadcast(event)),
      this.options.gateway.onTaskFinished((task) => this.finished(task)),
    );
  }

  async close(): Promise<void> {
    for (const unsubscribe of this.unsubscribers.splice(0)) unsubscribe();
    for (const client of this.clients) client.socket.end();
    const server = this.server;
    this.server = null;
    if (!server) return;
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      for (const client of this.clients) client.socket.destroy();
    });
  }

  clientCount(): number {
    return this.clients.size;
  }

  private accept(socket: Socket): void {
    const client: Client = { socket, subscribed: false };
    this.clients.add(client);
    socket.setEncoding("utf8");
    const reader = new LineReader((line) => {
      void this.handle(client, line);
    });
    socket.on("data", (chunk: string) => {
      try {
        reader.push(chunk);
      } catch (error) {
        this.send(client, { type: "reply", id: "", ok: false, error: describe(error) });
        socket.end();
      }
    });
    socket.on("error", (error) => this.options.logger.warn({ ...errorFields(error) }, "socket client error"));
    socket.on("close", () => this.clients.delete(client));
  }

  private async handle(client: Client, line: string): Promise<void> {
    let parsedJson: unknown;
    try {
      parsedJson = JSON.parse(line);
    } catch (error) {
      this.send(client, { type: "reply", id: "", ok: false, error: `not JSON: ${describe(error)}` });
      return;
    }
    const parsed = clientMessage.safeParse(parsedJson);
    if (!parsed.success) {
      const id =
        typeof parsedJson === "object" && parsedJson !== null && "id" in parsedJson
          ? String(parsedJson.id)
          : "";
      this.send(client, { type: "reply", id, ok: false, error: `bad request: ${parsed.error.message}` });
      return;
    }
    const message = parsed.data;
    try {
      const result = await this.dispatch(client, message);
      this.send(client, { type: "reply", id: message.id, ok: true, result });
      if (message.type === "subscribe") {
        for (const event of this.options.pendingApprovals()) this.send(client, { type: "event", event });
        this.flushPending(client);
      }
    } catch (error) {
      this.send(client, { type: "reply", id: message.id, ok: false, error: describe(error) });
    }
  }

  private async dispatch(client: Client, message: ClientMessage): Promise<unknown> {
    const { gateway } = this.options;
    switch (message.type) {
      case "subscribe":
        client.subscribed = true;
        return { subscribed: true };
      case "submit":
        return gateway.submit(
          { userKey: socketUserKey, channel: socketChannel, text: message.text },
          {
            ...(message.cwd !== undefined ? { cwd: message.cwd } : {}),
            ...(message.sessionId !== undefined ? { sessionId: message.sessionId } : {}),
          },
        );
      case "stop":
        return { stopped: await gateway.stop(socketUserKey) };
      case "status":
        return this.options.status();
      case "new-session":
        return { sessionId: await gateway.newSession(socketUserKey, socketChannel) };
      case "approve":
        await gateway.answerApproval(message.approvalId, message.decision, socketUserKey);
        return { answered: true };
      case "answer":
        await gateway.answerQuestion(message.questionId, message.answer, socketUserKey);
        return { answered: true };
      case "agents":
        return { agents: this.options.agents?.list() ?? [] };
      case "stop-agent":
        return { stopped: this.options.agents?.stop(message.agentId) ?? false };
      case "model":
      case "sessions":
      case "undo-preview":
      case "undo-restore":
        if (!this.options.chat)
          throw new Error("this daemon does not serve the chat's /model, /resume and /undo");
        return this.options.chat(message);
      case "dashboard":
        if (!this.options.dashboard) throw new Error("this daemon has no dashboard");
        return this.options.dashboard(message);
    }
  }

  private broadcast(event: AgentEvent): void {
    if (event.userKey !== socketUserKey) return;
    for (const client of this.clients) if (client.subscribed) this.send(client, { type: "event", event });
  }

  /** A terminal task ended: its answer gets a delivery record, sent now if a terminal is attached. */
  private finished(task: LedgerTask): void {
    if (task.channel !== socketChannel || task.userKey !== socketUserKey) return;
    this.options.deliveries.record(task.id, terminalTarget);
    for (const client of this.clients) if (client.subscribed) this.flushPending(client);
  }

  /** Sends answers queued for the terminal (e.g. a scheduled run's) to every attached terminal now. */
  flushDeliveries(): void {
    for (const client of this.clients) if (client.subscribed) this.flushPending(client);
  }

  private flushPending(client: Client): void {
    const { deliveries, ledger } = this.options;
    for (const delivery of deliveries.pending(terminalTarget)) {
      const task = ledger.get(delivery.taskId);
      if (!task) continue;
      deliveries.beginAttempt(delivery.id);
      const written = this.send(client, {
        type: "answer",
        taskId: task.id,
        sessionId: task.sessionId,
        status: task.status,
        text: task.finalAnswer ?? "",
        reason: task.reason,
      });
      if (written) deliveries.markSent(delivery.id);
      else
        deliveries.markAttemptFailed(delivery.id, "the terminal disconnected before the answer was written");
    }
  }

  private send(client: Client, message: ServerMessage): boolean {
    if (client.socket.destroyed || !client.socket.writable) return false;
    client.socket.write(`${JSON.stringify(message)}\n`);
    return true;
  }
}

function describe(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

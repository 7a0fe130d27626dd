import { connect, type Socket } from "node:net";
import { type ClientMessage, LineReader, type ServerMessage, serverMessage } from "./protocol.js";

type Request = ClientMessage extends infer M ? (M extends { id: string } ? Omit<M, "id"> : never) : never;

/** What the daemon sends without being asked: events and final answers. */
export type ServerPush = Exclude<ServerMessage, { type: "reply" }>;

export class DaemonUnavailableError extends Error {
  override name = "DaemonUnavailableError";
}

/** A connection to the daemon's socket: request/reply by id, plus pushed events and answers. */
export class DaemonClient {
  private nextId = 1;
  private readonly waiting = new Map<string, { resolve(value: unknown): void; reject(error: Error): void }>();
  private readonly listeners = new Set<(push: ServerPush) => void>();
  private closedError: Error | null = null;
  private readonly closeListeners = new Set<(error: Error) => void>();

  private constructor(private readonly socket: Socket) {
    socket.setEncoding("utf8");
    const reader = new LineReader((line) => this.receive(line));
    socket.on("data", (chunk: string) => {
      try {
        reader.push(chunk);
      } catch (error) {
        // A daemon that speaks another protocol (a different version): every waiter learns why.
        this.fail(
          new DaemonUnavailableError(
            `bad message from the daemon: ${error instanceof Error ? error.message : String(error)}`,
          ),
        );
        socket.destroy();
      }
    });
    socket.on("close", () => this.fail(new DaemonUnavailableError("the daemon closed the connection")));
  }

  private fail(error: Error): void {
    this.closedError ??= error;
    for (const waiter of this.waiting.values()) waiter.reject(error);
    this.waiting.clear();
    for (const listener of this.closeListeners) listener(error);
    this.closeListeners.clear();
  }

  /** Called once when the connection ends (the daemon stopped or crashed). */
  onClose(listener: (error: Error) => void): void {
    if (this.closedError) listener(this.closedError);
    else this.closeListeners.add(listener);
  }

  static connect(path: string, timeoutMs = 3000): Promise<DaemonClient> {
    return new Promise((resolve, reject) => {
      const socket = connect(path);
      const timer = setTimeout(() => {
        socket.destroy();
        reject(new DaemonUnavailableError(`no answer from the daemon socket ${path} within ${timeoutMs} ms`));
      }, timeoutMs);
      socket.once("connect", () => {
        clearTimeout(timer);
        socket.removeAllListeners("error");
        socket.on("error", () => socket.destroy());
        resolve(new DaemonClient(socket));
      });
      socket.once("error", (error) => {
        clearTimeout(timer);
        reject(new DaemonUnavailableError(`cannot connect to ${path}: ${error.message}`));
      });
    });
  }

  /** Null when no daemon listens there (no socket file, or a dead one). */
  static async tryConnect(path: string, timeoutMs = 3000): Promise<DaemonClient | null> {
    try {
      return await DaemonClient.connect(path, timeoutMs);
    } catch (error) {
      if (error instanceof DaemonUnavailableError) return null;
      throw error;
    }
  }

  onPush(listener: (push: ServerPush) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  request(message: Request): Promise<unknown> {
    if (this.closedError) return Promise.reject(this.closedError);
    const id = String(this.nextId++);
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      this.socket.write(`${JSON.stringify({ ...message, id })}\n`);
    });
  }

  close(): void {
    this.socket.end();
  }

  private receive(line: string): void {
    const parsed = serverMessage.safeParse(JSON.parse(line) as unknown);
    if (!parsed.success) throw new Error(`unexpected message from the daemon: ${line.slice(0, 200)}`);
    const message = parsed.data;
    if (message.type === "reply") {
      const waiter = this.waiting.get(message.id);
      if (!waiter) return;
      this.waiting.delete(message.id);
      if (message.ok) waiter.resolve(message.result);
      else waiter.reject(new Error(message.error));
      return;
    }
    for (const listener of this.listeners) listener(message);
  }
}

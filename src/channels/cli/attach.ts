import { createInterface } from "node:readline";
import type { AgentEvent } from "../../agent/events.js";
import type { DaemonClient, ServerPush } from "../../daemon/client.js";
import { disableBracketedPaste, enableBracketedPaste } from "./paste.js";
import { PasteInput } from "./paste-input.js";
import { createTerminalRenderer } from "./renderer.js";
import { approvalAnswers, parseSlashCommand } from "./slash-commands.js";

export interface AttachOptions {
  input: NodeJS.ReadableStream;
  output: NodeJS.WritableStream;
  errorOutput: NodeJS.WritableStream;
  colors: boolean;
  showReceipts: boolean;
  cwd: string;
  sessionId?: string;
}

function isAgentEvent(value: unknown): value is AgentEvent {
  return (
    typeof value === "object" &&
    value !== null &&
    typeof (value as { type?: unknown }).type === "string" &&
    typeof (value as { taskId?: unknown }).taskId === "string"
  );
}

/**
 * `mercury chat` while a daemon runs: the same conversation, but the agent, memory and ledger are
 * the daemon's (shared with Telegram). Lines go over the socket; events come back and are rendered.
 * Answers left undelivered (the terminal was gone when a task ended) are shown on attach, once.
 */
export async function attachChat(client: DaemonClient, options: AttachOptions): Promise<void> {
  const info = (line: string) => options.errorOutput.write(`${line}\n`);
  const render = createTerminalRenderer(
    { text: (chunk) => options.output.write(chunk), info },
    { colors: options.colors, showReceipts: options.showReceipts },
  );
  const running = new Set<string>();
  const streamed = new Set<string>();
  const ended = new Set<string>();
  let pendingApproval: string | null = null;
  let pendingQuestion: string | null = null;
  let sessionId = options.sessionId;
  let idleWaiter: (() => void) | null = null;
  const settleIdle = () => {
    if (running.size === 0 && idleWaiter) {
      idleWaiter();
      idleWaiter = null;
    }
  };

  client.onPush((push: ServerPush) => {
    if (push.type === "answer") {
      if (!streamed.has(push.taskId)) {
        info(`— answer of task ${push.taskId.slice(0, 8)} (${push.status}), delivered after a restart:`);
        if (push.text) options.output.write(`${push.text}\n`);
        if (push.reason) info(`  ${push.reason}`);
      }
      return;
    }
    if (!isAgentEvent(push.event)) return;
    const event = push.event;
    render(event);
    if (event.type === "task-start") {
      running.add(event.taskId);
      streamed.add(event.taskId);
    } else if (event.type === "task-end") {
      running.delete(event.taskId);
      ended.add(event.taskId);
      settleIdle();
    } else if (event.type === "approval-request") {
      pendingApproval = event.approvalId;
      info("approve? [y]es once / [s]ession / [a]lways / [n]o");
    } else if (event.type === "approval-resolved" && event.approvalId === pendingApproval) {
      pendingApproval = null;
    } else if (event.type === "question") {
      pendingQuestion = event.questionId;
    }
  });

  await client.request({ type: "subscribe" });
  info("attached to the running Mercury daemon (terminal and Telegram share this agent); /exit to leave");

  // A multi-line paste is one message here too: the paste filter reads the markers before readline.
  const paste = new PasteInput({ isTTY: false });
  const terminal = Boolean((options.input as NodeJS.ReadableStream & { isTTY?: boolean }).isTTY);
  if (terminal) options.output.write(enableBracketedPaste);
  options.input.pipe(paste);
  const readline = createInterface({ input: paste, terminal: false });
  let chain = Promise.resolve();
  let closed = false;
  const done = new Promise<void>((resolve) => {
    client.onClose((error) => {
      if (!closed) info(`the daemon connection ended: ${error.message}`);
      readline.close();
      resolve();
    });
    readline.on("close", () => {
      closed = true;
      // Input ended (Ctrl+D or a pipe): wait for the lines already typed to be submitted and for
      // the tasks this terminal started, then leave.
      void chain.then(() => {
        if (running.size === 0) resolve();
        else idleWaiter = resolve;
      });
    });
  });

  const handleLine = async (raw: string) => {
    const line = raw.trim();
    if (line === "") return;
    try {
      if (pendingApproval) {
        const decision = approvalAnswers[line.toLowerCase()];
        if (!decision) {
          info("answer y, s, a or n");
          return;
        }
        const approvalId = pendingApproval;
        pendingApproval = null;
        await client.request({ type: "approve", approvalId, decision });
        return;
      }
      if (pendingQuestion) {
        const questionId = pendingQuestion;
        pendingQuestion = null;
        await client.request({ type: "answer", questionId, answer: line });
        return;
      }
      const command = parseSlashCommand(line);
      if (command?.name === "/exit") {
        readline.close();
        client.close();
        return;
      }
      if (command?.name === "/stop") {
        const result = await client.request({ type: "stop" });
        info(JSON.stringify(result).includes("true") ? "stopped" : "nothing is running");
        return;
      }
      if (command?.name === "/new") {
        const result = (await client.request({ type: "new-session" })) as { sessionId?: unknown };
        sessionId = typeof result.sessionId === "string" ? result.sessionId : undefined;
        info(`new session ${sessionId ?? ""}`);
        return;
      }
      if (command?.name === "/status") {
        info(JSON.stringify(await client.request({ type: "status" }), null, 2));
        return;
      }
      if (command) {
        info(
          `${command.name} is not available while attached to the daemon; try /new, /stop, /status or /exit`,
        );
        return;
      }
      const submitted = (await client.request({
        type: "submit",
        text: line,
        cwd: options.cwd,
        ...(sessionId ? { sessionId } : {}),
      })) as { taskId?: unknown; sessionId?: unknown };
      if (typeof submitted.taskId === "string" && !ended.has(submitted.taskId)) {
        running.add(submitted.taskId);
        streamed.add(submitted.taskId);
      }
      if (typeof submitted.sessionId === "string") sessionId = submitted.sessionId;
    } catch (error) {
      info(`mercury: ${error instanceof Error ? error.message : String(error)}`);
    }
  };

  readline.on("line", (line) => {
    chain = chain.then(() => handleLine(paste.expand(line)));
  });
  await done;
  await chain;
  options.input.unpipe(paste);
  if (terminal) options.output.write(disableBracketedPaste);
  client.close();
}

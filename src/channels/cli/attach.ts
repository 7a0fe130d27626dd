import type { AgentEvent } from "../../agent/events.js";
import type { DaemonClient, ServerPush } from "../../daemon/client.js";
import { runAttachedCommand } from "./attached-commands.js";
import { ChatTerminal } from "./chat-terminal.js";
import { approvalAnswers, parseSlashCommand } from "./slash-commands.js";

export interface AttachOptions {
  input: NodeJS.ReadableStream;
  output: NodeJS.WritableStream;
  errorOutput: NodeJS.WritableStream;
  /** A person at a real terminal; defaults to whether the input is a TTY. */
  interactive?: boolean;
  colors: boolean;
  showReceipts: boolean;
  cwd: string;
  sessionId?: string;
  /** The daemon's status reply as lines for people (the same as `mercury status`). */
  formatStatus(raw: unknown): string;
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
 * `mercury chat` while a daemon runs: the same conversation and the same terminal (ChatTerminal:
 * paste, spinner, Markdown, tool lines, notices above the prompt), but the agent, memory and ledger
 * are the daemon's (shared with Telegram). Lines go over the socket; events come back and are
 * rendered. Answers left undelivered (the terminal was gone when a task ended) are shown once.
 */
export async function attachChat(client: DaemonClient, options: AttachOptions): Promise<void> {
  const interactive =
    options.interactive ?? Boolean((options.input as NodeJS.ReadableStream & { isTTY?: boolean }).isTTY);
  const terminal = new ChatTerminal({ ...options, interactive });
  const info = (line: string) => terminal.info(line);
  const running = new Set<string>();
  const streamed = new Set<string>();
  const ended = new Set<string>();
  let pendingApproval: string | null = null;
  /** The task the pending approval or question belongs to: its end clears the prompt. */
  let pendingTaskId: string | null = null;
  let pendingQuestion: string | null = null;
  /** A question of this terminal's own (/undo's "restore?"): the next line answers it. */
  let pendingAnswer: ((line: string) => Promise<void>) | null = null;
  let sessionId = options.sessionId;
  let lastInterruptAt = 0;
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
        if (push.text) {
          if (terminal.screen) info(push.text);
          else options.output.write(`${push.text}\n`);
        }
        if (push.reason) info(`  ${push.reason}`);
      }
      return;
    }
    if (!isAgentEvent(push.event)) return;
    const event = push.event;
    terminal.render(event);
    if (event.type === "task-start") {
      running.add(event.taskId);
      streamed.add(event.taskId);
    } else if (event.type === "task-end") {
      running.delete(event.taskId);
      ended.add(event.taskId);
      // A task that ended (stopped, failed) asks nothing any more: the prompt stops asking, and the
      // next line is a message again, not "answer y, s, a or n".
      if (pendingTaskId === event.taskId && (pendingApproval || pendingQuestion)) {
        pendingApproval = null;
        pendingQuestion = null;
        pendingTaskId = null;
        terminal.asking(null);
      }
      settleIdle();
    } else if (event.type === "approval-request") {
      pendingApproval = event.approvalId;
      pendingTaskId = event.taskId;
      info("  answer: y = once, s = this session, a = always, n = deny");
      terminal.asking("approve? y/s/a/n");
    } else if (event.type === "approval-resolved" && event.approvalId === pendingApproval) {
      pendingApproval = null;
      terminal.asking(null);
    } else if (event.type === "question") {
      pendingQuestion = event.questionId;
      pendingTaskId = event.taskId;
      // The interactive renderer leaves questions to the chat (the in-process chat asks them itself).
      if (terminal.screen) {
        info(`? ${event.question}${event.choices.length > 0 ? ` [${event.choices.join(" / ")}]` : ""}`);
        terminal.asking("answer");
      }
    }
  });

  // Lines typed while the connection is still being set up wait for it (typeahead is never lost):
  // the line handler is registered now, and every line is chained after the subscription.
  const subscribed = client.request({ type: "subscribe" }).then(() => {
    info(
      interactive
        ? "attached to the running Mercury daemon (terminal and Telegram share this agent). /help for commands, Ctrl+C to stop, twice to exit."
        : "attached to the running Mercury daemon (terminal and Telegram share this agent); /exit to leave",
    );
    // A terminal not drawn on (TERM=dumb) shows the prompt only when asked to.
    if (interactive) terminal.showPrompt();
  });
  // A failed subscription is thrown by `await subscribed` below; the chain only waits for it.
  let chain: Promise<void> = subscribed.catch(() => undefined);
  let connectionClosed = false;
  const done = new Promise<void>((resolve) => {
    client.onClose((error) => {
      connectionClosed = true;
      if (!terminal.isClosed) info(`the daemon connection ended: ${error.message}`);
      terminal.close();
      resolve();
    });
    void terminal.finished.then(() => {
      // Input ended (Ctrl+D or a pipe): wait for the lines already typed to be submitted and for
      // the tasks this terminal started, then leave.
      void chain.then(() => {
        if (running.size === 0 || connectionClosed) resolve();
        else idleWaiter = resolve;
      });
    });
  });

  /**
   * A stop refuses the approval this terminal shows first, as the in-process chat does: the daemon
   * otherwise kept it pending for a task that no longer runs (`mercury status`: approvals pending: 1).
   */
  const refusePendingApproval = async () => {
    const approvalId = pendingApproval;
    if (!approvalId) return;
    pendingApproval = null;
    terminal.asking(null);
    info("approval denied: the task was stopped at the prompt");
    await client.request({ type: "approve", approvalId, decision: "deny" });
  };

  const stop = async () => {
    await refusePendingApproval();
    const result = (await client.request({ type: "stop" })) as { stopped?: unknown };
    return result.stopped === true;
  };

  const handleLine = async (raw: string) => {
    const line = raw.trim();
    if (line === "") {
      if (interactive) terminal.showPrompt();
      return;
    }
    try {
      if (pendingApproval) {
        const decision = approvalAnswers[line.toLowerCase()];
        if (!decision) {
          info("answer y, s, a or n");
          return;
        }
        const approvalId = pendingApproval;
        pendingApproval = null;
        terminal.asking(null);
        await client.request({ type: "approve", approvalId, decision });
        return;
      }
      if (pendingQuestion) {
        const questionId = pendingQuestion;
        pendingQuestion = null;
        terminal.asking(null);
        await client.request({ type: "answer", questionId, answer: line });
        return;
      }
      if (pendingAnswer) {
        const answer = pendingAnswer;
        pendingAnswer = null;
        await answer(line);
        return;
      }
      const command = parseSlashCommand(line);
      if (command) {
        await runAttachedCommand(
          {
            client,
            info,
            asking: (prompt) => terminal.asking(prompt),
            sessionId: () => sessionId,
            setSessionId: (id) => {
              sessionId = id;
            },
            running: () => running.size > 0,
            expectAnswer: (handler) => {
              pendingAnswer = handler;
            },
            formatStatus: options.formatStatus,
            stop,
            leave: () => {
              terminal.close();
              client.close();
            },
          },
          command.name,
          command.argument,
        );
        return;
      }
      const text = line.startsWith("//") ? line.slice(1) : raw;
      const submitted = (await client.request({
        type: "submit",
        text,
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

  terminal.onLine((line) => {
    chain = chain.then(() => handleLine(line));
  });
  terminal.onInterrupt(() => {
    if (running.size > 0) {
      lastInterruptAt = Date.now();
      info("stopping… (Ctrl+C again to exit)");
      chain = chain.then(async () => {
        await stop().catch((error: unknown) =>
          info(`could not stop: ${error instanceof Error ? error.message : String(error)}`),
        );
      });
      return;
    }
    if (Date.now() - lastInterruptAt < 2000) {
      terminal.close();
      client.close();
      return;
    }
    lastInterruptAt = Date.now();
    info("(Ctrl+C again to exit)");
  });
  try {
    await subscribed;
  } catch (error) {
    terminal.close();
    terminal.dispose();
    throw error;
  }
  if (interactive) terminal.showPrompt();
  await done;
  await chain;
  terminal.dispose();
  client.close();
}

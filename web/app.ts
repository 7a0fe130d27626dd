/**
 * The dashboard's only script (served from /static/app.js; the CSP allows nothing inline).
 * It never builds HTML from strings: every text from the server or an event goes in through
 * textContent, so a memory or a model answer cannot become markup.
 */

interface AgentEventData {
  type: string;
  taskId: string;
  text?: string;
  toolName?: string;
  summary?: string;
  outcome?: string;
  reason?: string;
  message?: string;
  ok?: boolean;
}

const csrf = document.querySelector<HTMLMetaElement>('meta[name="csrf-token"]')?.content ?? "";

function element(tag: string, className: string, text = ""): HTMLElement {
  const node = document.createElement(tag);
  node.className = className;
  node.textContent = text;
  return node;
}

function setState(text: string): void {
  const state = document.getElementById("stream-state");
  if (state) state.textContent = text;
}

// Forms that change something important ask first.
for (const form of document.querySelectorAll<HTMLFormElement>("form[data-confirm]")) {
  form.addEventListener("submit", (event) => {
    if (!window.confirm(form.dataset.confirm ?? "Are you sure?")) event.preventDefault();
  });
}

const liveTypes = new Set((document.body.dataset.live ?? "").split(" ").filter((name) => name !== ""));
let reloadTimer: number | undefined;
function reloadSoon(): void {
  // Several events in a burst (a task's end and its approvals) reload once.
  window.clearTimeout(reloadTimer);
  reloadTimer = window.setTimeout(() => window.location.reload(), 150);
}

/** The chat page: the answer of each task sent from here, streamed in as it is written. */
class ChatView {
  private readonly log: HTMLElement;
  private readonly buffered = new Map<string, AgentEventData[]>();
  private readonly answers = new Map<string, HTMLElement>();
  private readonly mine = new Set<string>();

  constructor(log: HTMLElement, form: HTMLFormElement) {
    this.log = log;
    const input = form.querySelector<HTMLTextAreaElement>("textarea");
    form.addEventListener("submit", (event) => {
      event.preventDefault();
      const text = input?.value.trim() ?? "";
      if (text === "" || !input) return;
      input.value = "";
      void this.send(text);
    });
    input?.addEventListener("keydown", (event) => {
      if (event.key === "Enter" && !event.shiftKey) {
        event.preventDefault();
        form.requestSubmit();
      }
    });
    document.getElementById("chat-stop")?.addEventListener("click", () => {
      void post("/chat/stop", {});
    });
  }

  private async send(text: string): Promise<void> {
    this.log.append(element("div", "user-message", text));
    const reply = await post("/chat", { text });
    if (!reply.ok || typeof reply.taskId !== "string") {
      this.log.append(element("div", "error", String(reply.error ?? "the message was not accepted")));
      return;
    }
    this.mine.add(reply.taskId);
    for (const event of this.buffered.get(reply.taskId) ?? []) this.render(event);
    this.buffered.delete(reply.taskId);
  }

  receive(event: AgentEventData): void {
    if (this.mine.has(event.taskId)) this.render(event);
    else {
      // An event can arrive before the POST that started its task has answered.
      const list = this.buffered.get(event.taskId) ?? [];
      list.push(event);
      this.buffered.set(event.taskId, list.slice(-2000));
    }
  }

  private answer(taskId: string): HTMLElement {
    let node = this.answers.get(taskId);
    if (!node) {
      node = element("div", "assistant-message");
      node.dataset.taskId = taskId;
      this.answers.set(taskId, node);
      this.log.append(node);
    }
    return node;
  }

  private render(event: AgentEventData): void {
    switch (event.type) {
      case "text-delta":
        this.answer(event.taskId).textContent += event.text ?? "";
        break;
      case "tool-call":
        this.log.append(element("div", "tool-line", `→ ${event.toolName ?? "tool"}`));
        break;
      case "tool-result":
        this.log.append(
          element("div", "tool-line", `← ${event.toolName ?? "tool"} ${event.ok ? "ok" : "failed"}`),
        );
        break;
      case "approval-request": {
        const line = element("div", "approval-line", `Approval needed: ${event.summary ?? ""} `);
        const link = document.createElement("a");
        link.href = "/approvals";
        link.textContent = "answer it";
        line.append(link);
        this.log.append(line);
        break;
      }
      case "notice":
        this.log.append(element("div", "notice-line", event.message ?? ""));
        break;
      case "task-end": {
        const node = this.answer(event.taskId);
        if ((node.textContent ?? "") === "" && event.text) node.textContent = event.text;
        node.dataset.done = "true";
        this.log.append(
          element(
            "div",
            `outcome outcome-${event.outcome ?? ""}`,
            `${event.outcome ?? "ended"}${event.reason ? `: ${event.reason}` : ""}`,
          ),
        );
        break;
      }
    }
  }
}

async function post(url: string, body: unknown): Promise<Record<string, unknown>> {
  try {
    const response = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", "x-csrf-token": csrf },
      body: JSON.stringify(body),
    });
    const parsed: unknown = await response.json();
    return typeof parsed === "object" && parsed !== null ? (parsed as Record<string, unknown>) : {};
  } catch (error) {
    return { ok: false, error: error instanceof Error ? error.message : String(error) };
  }
}

const chatLog = document.getElementById("chat-log");
const chatForm = document.getElementById("chat-form");
const chat = chatLog && chatForm instanceof HTMLFormElement ? new ChatView(chatLog, chatForm) : null;

if (chat || liveTypes.size > 0) {
  const source = new EventSource("/events");
  source.addEventListener("ready", () => {
    document.body.dataset.stream = "live";
    setState("live");
  });
  source.addEventListener("error", () => {
    document.body.dataset.stream = "reconnecting";
    setState("reconnecting…");
  });
  source.addEventListener("agent", (message) => {
    let event: AgentEventData;
    try {
      event = JSON.parse((message as MessageEvent<string>).data) as AgentEventData;
    } catch {
      return;
    }
    chat?.receive(event);
    if (liveTypes.has(event.type)) reloadSoon();
  });
}

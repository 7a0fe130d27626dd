import { createInterface, type Interface } from "node:readline";
import type { AgentEvent } from "../../agent/events.js";
import { createChatRenderer } from "./chat-renderer.js";
import { disableBracketedPaste, enableBracketedPaste } from "./paste.js";
import { PasteInput } from "./paste-input.js";
import { createTerminalRenderer } from "./renderer.js";
import { ChatScreen } from "./screen.js";

export interface ChatTerminalOptions {
  input: NodeJS.ReadableStream;
  output: NodeJS.WritableStream;
  errorOutput: NodeJS.WritableStream;
  /** A person at a real terminal (raw mode, prompt, spinner); false when input is piped. */
  interactive: boolean;
  colors: boolean;
  showReceipts: boolean;
}

type RawInput = NodeJS.ReadableStream & { setRawMode?(raw: boolean): void };

/**
 * The terminal half of a chat, shared by the in-process chat and the chat attached to the daemon:
 * bracketed paste read before readline, the line editor, the screen (prompt redraw, spinner) and
 * the event renderer (Markdown a block at a time, one line per tool call, coloured notices). The
 * two chats differ only in where a line goes (the local agent or the daemon's socket).
 */
export class ChatTerminal {
  readonly readline: Interface;
  /** The interactive screen (prompt redraw, spinner); null when input is piped. */
  readonly screen: ChatScreen | null;
  /** Renders one event of the agent's stream. */
  readonly render: (event: AgentEvent) => void;
  /** Resolves when input ends (Ctrl+D, end of the pipe) or `close()` is called. */
  readonly finished: Promise<void>;
  private readonly paste: PasteInput;
  private closed = false;

  constructor(private readonly options: ChatTerminalOptions) {
    const input = options.input as RawInput;
    this.paste = new PasteInput({ isTTY: options.interactive });
    // Bracketed paste markers must be read before readline's key decoder sees them (see PasteInput),
    // so readline reads from the paste filter; raw mode is set on the real terminal here because
    // readline can only set it on its own input.
    if (options.interactive) input.setRawMode?.(true);
    input.pipe(this.paste);
    this.readline = createInterface({
      input: this.paste,
      output: options.output,
      terminal: options.interactive,
      prompt: "› ",
    });
    const columns = (options.output as NodeJS.WritableStream & { columns?: number }).columns ?? 80;
    this.screen = options.interactive ? new ChatScreen(this.readline, options.output, options.colors) : null;
    this.render = this.screen
      ? createChatRenderer(this.screen, {
          colors: options.colors,
          showReceipts: options.showReceipts,
          width: columns,
        })
      : createTerminalRenderer(
          {
            text: (chunk) => options.output.write(chunk),
            info: (line) => options.errorOutput.write(`${line}\n`),
          },
          { colors: options.colors, showReceipts: options.showReceipts },
        );
    if (options.interactive) options.output.write(enableBracketedPaste);
    this.finished = new Promise<void>((resolve) => {
      this.readline.on("close", () => {
        this.closed = true;
        this.screen?.stop();
        // Nothing reads keys any more: the terminal's own line discipline is back, so a Ctrl+C while
        // the chat winds down (a stopped task, the last memory extraction) is a signal, not a lost byte.
        if (options.interactive) input.setRawMode?.(false);
        resolve();
      });
    });
  }

  /** A submitted line, with any paste token turned back into the pasted text. */
  onLine(handler: (message: string) => void): void {
    this.readline.on("line", (line) => handler(this.paste.expand(line)));
  }

  /** Ctrl+C: in raw mode it is a key, not a signal, so readline reports it here. */
  onInterrupt(handler: () => void): void {
    this.readline.on("SIGINT", handler);
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** A line for the person (notices, command output): above the prompt, or on stderr when piped. */
  info(line: string): void {
    if (this.screen && !this.closed) this.screen.print(line);
    else this.options.errorOutput.write(`${line}\n`);
  }

  /** Shows the prompt again (with the spinner while a task runs); nothing once input has ended. */
  showPrompt(): void {
    if (this.closed) return;
    if (this.screen) this.screen.redraw();
    else this.readline.prompt();
  }

  /** While set, the prompt asks this (an approval, a question) instead of showing the activity. */
  asking(question: string | null): void {
    this.screen?.asking(question);
  }

  /** The prompt shows the spinner at once (a line was sent; the first event may take a while). */
  busy(activity: string): void {
    this.screen?.busy(activity);
  }

  close(): void {
    this.readline.close();
  }

  /** Gives the terminal back as it was: paste mode off, raw mode off, input no longer read. */
  dispose(): void {
    if (this.options.interactive) {
      this.options.output.write(disableBracketedPaste);
      (this.options.input as RawInput).setRawMode?.(false);
    }
    this.options.input.unpipe(this.paste);
  }
}

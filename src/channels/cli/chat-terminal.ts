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
  /** TERM=dumb: a terminal that understands no escape codes (the default reads TERM). */
  dumbTerminal?: boolean;
}

type Sized = NodeJS.WritableStream & { columns?: number; isTTY?: boolean };

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

  /** Cursor drawing (raw mode, prompt redraw, spinner, bracketed paste) is in use. */
  private readonly drawing: boolean;
  private readonly signalHandlers: [NodeJS.Signals, () => void][] = [];

  constructor(private readonly options: ChatTerminalOptions) {
    const input = options.input as RawInput;
    const output = options.output as Sized;
    const dumb = options.dumbTerminal ?? process.env.TERM === "dumb";
    // A person is there, but the screen cannot be drawn on: TERM=dumb understands no escape codes, and
    // answers redirected to a file (`mercury chat > answers.txt`) must not carry them. Then the line
    // discipline edits the line (cooked mode), answers go plainly to stdout and the prompt, notices
    // and banners to stderr, without colour on a dumb terminal.
    this.drawing = options.interactive && output.isTTY === true && !dumb;
    const colors = options.colors && !dumb;
    this.paste = new PasteInput({ isTTY: this.drawing });
    // Bracketed paste markers must be read before readline's key decoder sees them (see PasteInput),
    // so readline reads from the paste filter; raw mode is set on the real terminal here because
    // readline can only set it on its own input.
    if (this.drawing) input.setRawMode?.(true);
    input.pipe(this.paste);
    this.readline = createInterface({
      input: this.paste,
      output: this.drawing || !options.interactive ? options.output : options.errorOutput,
      terminal: this.drawing,
      prompt: "› ",
    });
    // The width is read at each answer, so a window resized during a stream wraps to its new size.
    const width = () => output.columns ?? 80;
    this.screen = this.drawing ? new ChatScreen(this.readline, options.output, colors) : null;
    this.render = this.screen
      ? createChatRenderer(this.screen, { colors, showReceipts: options.showReceipts, width })
      : createTerminalRenderer(
          {
            text: (chunk) => options.output.write(chunk),
            info: (line) => options.errorOutput.write(`${line}\n`),
          },
          { colors, showReceipts: options.showReceipts },
        );
    if (this.drawing) {
      options.output.write(enableBracketedPaste);
      // readline handles Ctrl+Z itself and, back in the foreground, pauses its input and emits
      // SIGCONT (a resumed readline); a stop sent from outside only reaches the process.
      this.readline.on("SIGCONT", () => this.resumed(input));
      this.onSignal("SIGCONT", () => this.resumed(input));
      this.onSignal("SIGWINCH", () => this.screen?.redraw());
    }
    this.finished = new Promise<void>((resolve) => {
      this.readline.on("close", () => {
        this.closed = true;
        this.screen?.stop();
        for (const [signal, handler] of this.signalHandlers.splice(0))
          process.removeListener(signal, handler);
        // Nothing reads keys any more: the terminal's own line discipline is back, so a Ctrl+C while
        // the chat winds down (a stopped task, the last memory extraction) is a signal, not a lost byte.
        if (this.drawing) input.setRawMode?.(false);
        resolve();
      });
    });
  }

  private onSignal(signal: NodeJS.Signals, handler: () => void): void {
    process.on(signal, handler);
    this.signalHandlers.push([signal, handler]);
  }

  /**
   * Back from Ctrl+Z (`fg`): the shell gave the terminal back in its own cooked mode, so Ctrl+C was a
   * signal that killed the chat (exit 130, the task never recorded) and typed keys echoed twice.
   * Raw mode and bracketed paste are set again and the prompt redrawn.
   */
  private resumed(input: RawInput): void {
    if (this.closed) return;
    // libuv remembers the mode it last set and skips setting the same one again: off, then on.
    input.setRawMode?.(false);
    input.setRawMode?.(true);
    this.options.output.write(enableBracketedPaste);
    this.screen?.redraw();
  }

  /** A submitted line, with any paste token turned back into the pasted text. */
  onLine(handler: (message: string) => void): void {
    this.readline.on("line", (line) => handler(this.paste.expand(line)));
  }

  /**
   * Ctrl+C: in raw mode it is a key, not a signal, so readline reports it here; on a terminal that
   * is not drawn on (cooked mode) it is the signal, handled the same way while the chat reads lines.
   */
  onInterrupt(handler: () => void): void {
    this.readline.on("SIGINT", handler);
    if (this.options.interactive && !this.drawing) this.onSignal("SIGINT", handler);
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
    if (this.drawing) {
      this.options.output.write(disableBracketedPaste);
      (this.options.input as RawInput).setRawMode?.(false);
    }
    this.options.input.unpipe(this.paste);
  }
}

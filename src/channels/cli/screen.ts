import { clearLine, cursorTo, type Interface } from "node:readline";

const frames = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

export const paint = (code: number, text: string, enabled: boolean) =>
  enabled ? `\x1b[${code}m${text}\x1b[0m` : text;

/**
 * The interactive terminal: everything is printed ABOVE the input line, which is then redrawn with
 * what the user had typed, so a notice never breaks the line being edited. While a task runs the
 * prompt itself carries the spinner, the elapsed time and the current activity.
 */
export class ChatScreen {
  private activity: string | null = null;
  private startedAt = 0;
  private frame = 0;
  private timer: NodeJS.Timeout | null = null;
  private question: string | null = null;

  constructor(
    private readonly readline: Interface,
    private readonly output: NodeJS.WritableStream,
    private readonly colors: boolean,
    private readonly now: () => number = Date.now,
  ) {}

  /** Prints whole lines above the prompt and redraws the prompt with the user's unfinished input. */
  print(text: string): void {
    const tty = this.output as NodeJS.WritableStream & { isTTY?: boolean };
    if (tty.isTTY) {
      cursorTo(this.output, 0);
      clearLine(this.output, 0);
    }
    this.output.write(text.endsWith("\n") ? text : `${text}\n`);
    this.redraw();
  }

  /** A task is working on `activity` ("thinking", "running `npm test`", "waiting for approval"). */
  busy(activity: string): void {
    if (this.activity === null) this.startedAt = this.now();
    this.activity = activity;
    if (!this.timer) {
      this.timer = setInterval(() => this.tick(), 120);
      this.timer.unref();
    }
    this.redraw();
  }

  idle(): void {
    this.activity = null;
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.redraw();
  }

  /** While set, the prompt asks this question (an approval, ask_user) instead of showing activity. */
  asking(question: string | null): void {
    this.question = question;
    this.redraw();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  private tick(): void {
    this.frame = (this.frame + 1) % frames.length;
    this.redraw();
  }

  private promptText(): string {
    if (this.question) return `${paint(35, this.question, this.colors)} › `;
    if (this.activity === null) return "› ";
    const seconds = Math.floor((this.now() - this.startedAt) / 1000);
    return `${paint(36, `${frames[this.frame]} ${this.activity} ${seconds}s`, this.colors)} ${paint(90, "(type to steer)", this.colors)} › `;
  }

  redraw(): void {
    this.readline.setPrompt(this.promptText());
    this.readline.prompt(true);
  }
}

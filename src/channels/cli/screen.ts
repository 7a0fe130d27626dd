import { clearScreenDown, cursorTo, type Interface, moveCursor } from "node:readline";

const frames = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

export const paint = (code: number, text: string, enabled: boolean) =>
  enabled ? `\x1b[${code}m${text}\x1b[0m` : text;

/**
 * readline remembers in `prevRows` how many rows above the cursor its last drawing of the prompt
 * began, and a redraw first moves up that many rows. Node (20) does not update it when several
 * characters arrive in one read (fast typing, a one-line paste) and the input wraps onto a new row:
 * each redraw (every spinner frame) then left a copy of the wrapped input behind. So the screen sets
 * it itself from the cursor's real row before each redraw. The property is readline's own; without it
 * (another Node) nothing is set and readline's value is used.
 */
type RowMemory = { prevRows?: unknown };

function setRowsAboveCursor(readline: Interface, rows: number): void {
  const memory = readline as unknown as RowMemory;
  if (typeof memory.prevRows === "number") memory.prevRows = rows;
}

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
  /** Once the line editor has closed no prompt is drawn again: lines print plainly, as after a shell's. */
  private closed = false;

  constructor(
    private readonly readline: Interface,
    private readonly output: NodeJS.WritableStream,
    private readonly colors: boolean,
    private readonly now: () => number = Date.now,
  ) {}

  private get isTTY(): boolean {
    return Boolean((this.output as NodeJS.WritableStream & { isTTY?: boolean }).isTTY);
  }

  /**
   * Erases the prompt and the input as drawn (every row of a wrapped input, not only the cursor's),
   * leaving the cursor at the start of the prompt's first row.
   */
  private erasePrompt(): void {
    if (!this.isTTY) return;
    const rows = this.readline.getCursorPos().rows;
    if (rows > 0) moveCursor(this.output, 0, -rows);
    cursorTo(this.output, 0);
    clearScreenDown(this.output);
  }

  /** Prints whole lines above the prompt and redraws the prompt with the user's unfinished input. */
  print(text: string): void {
    if (!this.closed) this.erasePrompt();
    this.output.write(text.endsWith("\n") ? text : `${text}\n`);
    if (this.closed) return;
    // The prompt is drawn afresh on the row below the text: nothing of it is above the cursor.
    setRowsAboveCursor(this.readline, 0);
    this.draw();
  }

  /** A task is working on `activity` ("thinking", "running `npm test`", "waiting for approval"). */
  busy(activity: string): void {
    if (this.activity === null) this.startedAt = this.now();
    this.activity = activity;
    if (!this.timer && !this.closed) {
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

  /**
   * The line editor closed (Ctrl+D, Ctrl+C twice, /exit): the spinner stops and the prompt is erased,
   * so what prints while the chat winds down, and the shell's prompt after it, start at the left
   * edge instead of after a dead "› ".
   */
  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    if (this.closed) return;
    this.erasePrompt();
    this.closed = true;
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

  /** Redraws the prompt where it is (spinner frame, activity, question), keeping the typed input. */
  redraw(): void {
    if (this.closed) return;
    // Where the cursor really is, under the prompt as last drawn (see setRowsAboveCursor).
    setRowsAboveCursor(this.readline, this.readline.getCursorPos().rows);
    this.draw();
  }

  private draw(): void {
    this.readline.setPrompt(this.promptText());
    this.readline.prompt(true);
  }
}

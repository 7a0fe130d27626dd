/**
 * Output limits shared by the built-in tools. Truncation keeps the head and the tail, because the
 * start of an output says what ran and the end says how it finished; the middle is what a model can
 * fetch again on request, so the note tells it how.
 */

export const DEFAULT_MAX_OUTPUT_CHARS = 30_000;

export interface TruncateOptions {
  /** Total characters kept (head + tail), not counting the note. */
  maxChars?: number;
  /** Sentence telling the model how to get the omitted part, e.g. "Use read_file with startLine/endLine." */
  hint: string | ((headChars: number) => string);
}

export interface Truncated {
  text: string;
  truncated: boolean;
  omittedChars: number;
  /** Characters of the original kept at the start: where the omitted part begins. */
  headChars: number;
}

/** Keeps the first 60% and the last 40% of the budget, cut at line boundaries when one is near. */
export function truncateHeadTail(text: string, options: TruncateOptions): Truncated {
  const maxChars = options.maxChars ?? DEFAULT_MAX_OUTPUT_CHARS;
  if (text.length <= maxChars) return { text, truncated: false, omittedChars: 0, headChars: text.length };
  const headBudget = Math.floor(maxChars * 0.6);
  const tailBudget = maxChars - headBudget;
  const head = cutAtLastNewline(text.slice(0, headBudget));
  const tail = cutAtFirstNewline(text.slice(text.length - tailBudget));
  const omittedChars = text.length - head.length - tail.length;
  const omittedLines = countLines(text.slice(head.length, text.length - tail.length));
  const hint = typeof options.hint === "function" ? options.hint(head.length) : options.hint;
  const note = `\n[... ${omittedChars} characters (${omittedLines} lines) omitted. ${hint} ...]\n`;
  return { text: head + note + tail, truncated: true, omittedChars, headChars: head.length };
}

function cutAtLastNewline(chunk: string): string {
  const at = chunk.lastIndexOf("\n");
  // Only cut when the line boundary is close; a huge single line is cut mid-line instead.
  return at >= chunk.length * 0.8 ? chunk.slice(0, at + 1) : chunk;
}

function cutAtFirstNewline(chunk: string): string {
  const at = chunk.indexOf("\n");
  return at >= 0 && at <= chunk.length * 0.2 ? chunk.slice(at + 1) : chunk;
}

export function countLines(text: string): number {
  if (text === "") return 0;
  let lines = 1;
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 10) lines++;
  return text.endsWith("\n") ? lines - 1 : lines;
}

/**
 * A bounded byte collector for streamed output: keeps the first `headBytes` and a rolling window of
 * the last `tailBytes`, so a command printing gigabytes cannot exhaust memory.
 */
export class HeadTailBuffer {
  private readonly head: Buffer[] = [];
  private headSize = 0;
  private tail: Buffer[] = [];
  private tailSize = 0;
  private dropped = 0;

  constructor(
    private readonly headBytes: number,
    private readonly tailBytes: number,
  ) {}

  push(chunk: Buffer): void {
    let rest = chunk;
    if (this.headSize < this.headBytes) {
      const take = Math.min(this.headBytes - this.headSize, rest.length);
      this.head.push(rest.subarray(0, take));
      this.headSize += take;
      rest = rest.subarray(take);
    }
    if (rest.length === 0) return;
    this.tail.push(rest);
    this.tailSize += rest.length;
    while (this.tailSize > this.tailBytes) {
      const first = this.tail[0];
      if (!first) break;
      const excess = this.tailSize - this.tailBytes;
      if (first.length <= excess) {
        this.tail.shift();
        this.tailSize -= first.length;
        this.dropped += first.length;
      } else {
        this.tail[0] = first.subarray(excess);
        this.tailSize -= excess;
        this.dropped += excess;
      }
    }
  }

  get totalBytes(): number {
    return this.headSize + this.tailSize + this.dropped;
  }

  /** The kept text; when bytes were dropped, a note in the middle says how many. */
  text(hint: string): string {
    const head = Buffer.concat(this.head).toString("utf8");
    const tail = Buffer.concat(this.tail).toString("utf8");
    if (this.dropped === 0) return head + tail;
    return `${head}\n[... ${this.dropped} bytes omitted. ${hint} ...]\n${tail}`;
  }
}

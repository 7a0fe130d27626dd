import { Transform, type TransformCallback } from "node:stream";
import { StringDecoder } from "node:string_decoder";

const pasteStart = "\x1b[200~";
const pasteEnd = "\x1b[201~";
/** Longest typed read handed to readline a character at a time (see pushKeys). */
const maxSplitRead = 4096;
const tokenPattern = /\[paste #(\d+), \d+ lines\]/g;

/** How much of `marker` the end of `text` could be the beginning of (a marker split across reads). */
function partialMarkerLength(text: string, marker: string): number {
  for (let length = Math.min(marker.length - 1, text.length); length > 0; length--) {
    if (marker.startsWith(text.slice(text.length - length))) return length;
  }
  return 0;
}

/**
 * Sits between the terminal and readline and takes bracketed pastes (ESC[200~ … ESC[201~) out of
 * the byte stream before readline's key decoder sees them: readline would swallow the markers and
 * turn each pasted newline into Enter, sending a multi-line paste as several messages. A multi-line
 * paste becomes one short token on the input line, `[paste #1, 3 lines]`, which `expand` turns back
 * into the pasted text when the line is submitted. One-line pastes pass through as typed text.
 */
export class PasteInput extends Transform {
  /** readline switches to terminal handling (keys, history, redraw) when its input says it is a TTY. */
  readonly isTTY: boolean;
  private readonly decoder = new StringDecoder("utf8");
  private carry = "";
  private pasted: string | null = null;
  private readonly pastes = new Map<number, string>();
  private count = 0;

  constructor(options: { isTTY: boolean }) {
    super();
    this.isTTY = options.isTTY;
  }

  override _transform(chunk: Buffer | string, _encoding: BufferEncoding, done: TransformCallback): void {
    const text = this.carry + (typeof chunk === "string" ? chunk : this.decoder.write(chunk));
    this.carry = "";
    this.pushKeys(this.consume(text));
    done();
  }

  /**
   * Hands typed text to readline one character per read. Node's readline (20) draws the characters
   * of a many-character read without redrawing the line, and so loses track of the rows a wrapped
   * input covers: the next redraw (every spinner frame, every notice) left a copy of the input's
   * first rows behind, and printed lines were erased. One character a read keeps it exact. Key
   * sequences (ESC …) pass whole, as the terminal sent them, and so does a read longer than
   * maxSplitRead (a huge one-line paste): readline redraws the whole line at each row it fills, which
   * grows with the square of the length.
   */
  private pushKeys(text: string): void {
    if (text === "") return;
    if (!this.isTTY || text.length > maxSplitRead || text.includes("\x1b")) {
      this.push(text);
      return;
    }
    for (const character of text) this.push(character);
  }

  override _flush(done: TransformCallback): void {
    // Input ended inside a paste: deliver what arrived rather than lose it.
    const rest = this.carry + this.decoder.end();
    this.carry = "";
    let out = this.consume(rest);
    if (this.pasted !== null) {
      out += this.finishPaste(this.pasted);
      this.pasted = null;
    }
    this.pushKeys(out);
    done();
  }

  private consume(input: string): string {
    let text = input;
    let out = "";
    for (;;) {
      if (this.pasted === null) {
        const start = text.indexOf(pasteStart);
        if (start < 0) {
          const partial = partialMarkerLength(text, pasteStart);
          this.carry = text.slice(text.length - partial);
          return out + text.slice(0, text.length - partial);
        }
        out += text.slice(0, start);
        this.pasted = "";
        text = text.slice(start + pasteStart.length);
      } else {
        const end = text.indexOf(pasteEnd);
        if (end < 0) {
          const partial = partialMarkerLength(text, pasteEnd);
          this.carry = text.slice(text.length - partial);
          this.pasted += text.slice(0, text.length - partial);
          return out;
        }
        out += this.finishPaste(this.pasted + text.slice(0, end));
        this.pasted = null;
        text = text.slice(end + pasteEnd.length);
      }
    }
  }

  private finishPaste(raw: string): string {
    const content = raw.replace(/\r\n?/g, "\n").replace(/\n+$/, "");
    if (!content.includes("\n")) return content;
    this.count += 1;
    this.pastes.set(this.count, content);
    return `[paste #${this.count}, ${content.split("\n").length} lines]`;
  }

  /** The submitted line with every paste token replaced by the text it stands for. */
  expand(line: string): string {
    return line.replace(tokenPattern, (token, number: string) => {
      const content = this.pastes.get(Number(number));
      if (content === undefined) return token;
      this.pastes.delete(Number(number));
      return content;
    });
  }
}

const pasteStart = "\x1b[200~";
const pasteEnd = "\x1b[201~";

/**
 * Joins the lines of a bracketed paste (the terminal wraps pasted text in ESC[200~ … ESC[201~) into
 * one message, so a multi-line paste is sent intact instead of as many messages.
 */
export class PasteAssembler {
  private buffer: string[] | null = null;

  /** Returns a complete message, or null while a paste is still arriving. */
  push(line: string): string | null {
    let text = line;
    if (text.includes(pasteStart)) {
      text = text.split(pasteStart).join("");
      this.buffer = [];
    }
    if (this.buffer) {
      const ended = text.includes(pasteEnd);
      this.buffer.push(text.split(pasteEnd).join(""));
      if (!ended) return null;
      const message = this.buffer.join("\n");
      this.buffer = null;
      return message;
    }
    return text;
  }

  get pasting(): boolean {
    return this.buffer !== null;
  }
}

export const enableBracketedPaste = "\x1b[?2004h";
export const disableBracketedPaste = "\x1b[?2004l";

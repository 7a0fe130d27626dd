/** Asks the terminal to wrap pasted text in ESC[200~ … ESC[201~ (read by PasteInput), and to stop. */
export const enableBracketedPaste = "\x1b[?2004h";
export const disableBracketedPaste = "\x1b[?2004l";

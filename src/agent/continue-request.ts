/** "continue" (and a few obvious spellings) resumes the user's paused task instead of starting one. */
export function isContinueRequest(text: string): boolean {
  return /^\/?(continue|resume|go on|keep going)[.!]?$/i.test(text.trim());
}

/**
 * "continue" (and a few obvious spellings, "please" around them) resumes the user's paused task
 * instead of starting one. Anything else is a new task; when the session's earlier task did not end,
 * that new task's answer says so (see WorkLedger.unfinishedBefore), so no phrasing reads as verified.
 * Kept in its own small module so `mercury run` can test a task for it without loading the gateway.
 */
export function isContinueRequest(text: string): boolean {
  return /^\/?(?:(?:ok(?:ay)?|please),?\s+)?(continue|resume|go on|keep going|carry on|proceed|try again|retry)(?:,?\s+please)?[.!]*$/i.test(
    text.trim(),
  );
}

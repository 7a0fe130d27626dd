import { RowShapeError } from "./row-shape.js";

/**
 * Errors about Mercury's own state (the database, its home directory) that no command can work
 * around: each becomes one line saying what is wrong and the fix, never a stack trace (issue 10).
 */
function codeOf(error: unknown): string {
  if (typeof error !== "object" || error === null) return "";
  const code = (error as { code?: unknown }).code;
  return typeof code === "string" ? code : "";
}

export function describeStateError(error: unknown): string | null {
  // Its message already names the table, row and column, and the way back to a good copy.
  if (error instanceof RowShapeError) return error.message;
  const code = codeOf(error);
  const message = error instanceof Error ? error.message : String(error);
  if (
    code.startsWith("SQLITE_CORRUPT") ||
    code === "SQLITE_NOTADB" ||
    /database disk image is malformed|file is not a database/i.test(message)
  ) {
    return `the database is damaged (${message}). Run \`mercury doctor\` to check it, then \`mercury backup list\` and \`mercury backup restore <file>\` to go back to the last good copy.`;
  }
  if (
    code === "SQLITE_FULL" ||
    code === "ENOSPC" ||
    /database or disk is full|no space left/i.test(message)
  ) {
    return `the disk is full (${message}): Mercury cannot save its state. Free some space, then run \`mercury doctor\`.`;
  }
  if (
    code.startsWith("SQLITE_READONLY") ||
    code.startsWith("SQLITE_CANTOPEN") ||
    code === "EACCES" ||
    code === "EROFS" ||
    code === "EPERM"
  ) {
    const path = (error as { path?: unknown }).path;
    const where = typeof path === "string" ? ` (${path})` : "";
    return `Mercury cannot write its home directory${where}: ${message}. Make MERCURY_HOME writable by you (or point MERCURY_HOME elsewhere), then run \`mercury doctor\`.`;
  }
  return null;
}

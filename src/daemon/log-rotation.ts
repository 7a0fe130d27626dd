import { copyFileSync, existsSync, renameSync, statSync, truncateSync, unlinkSync } from "node:fs";

export const defaultLogMaxBytes = 5 * 1024 * 1024;
export const defaultLogKeep = 3;
export const daemonLogName = "daemon.log";

export function logMaxBytes(env: NodeJS.ProcessEnv): number {
  const raw = env.MERCURY_DAEMON_LOG_MAX_BYTES;
  if (raw === undefined || raw.trim() === "") return defaultLogMaxBytes;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1024) {
    throw new Error(`MERCURY_DAEMON_LOG_MAX_BYTES must be an integer of at least 1024, got "${raw}"`);
  }
  return value;
}

/**
 * The file's size, 0 when it does not exist yet. `throwIfNoEntry: false` rather than lock.ts's
 * `isCode`: every logger rotates at its first line, and a command should not load the daemon's lock
 * code for that (issue 13, start-up path).
 */
function size(path: string): number {
  return statSync(path, { throwIfNoEntry: false })?.size ?? 0;
}

function shift(path: string, keep: number): void {
  const oldest = `${path}.${keep}`;
  if (existsSync(oldest)) unlinkSync(oldest);
  for (let index = keep - 1; index >= 1; index -= 1) {
    if (existsSync(`${path}.${index}`)) renameSync(`${path}.${index}`, `${path}.${index + 1}`);
  }
}

/**
 * Rotates a log nobody holds open (before the daemon starts): daemon.log → daemon.log.1 → … → .keep.
 * Returns whether it rotated.
 */
export function rotateIfLarge(path: string, maxBytes = defaultLogMaxBytes, keep = defaultLogKeep): boolean {
  if (size(path) <= maxBytes) return false;
  shift(path, keep);
  renameSync(path, `${path}.1`);
  return true;
}

/**
 * Rotates the log the running daemon writes through an O_APPEND descriptor (its stdout): copy, then
 * truncate in place, so the descriptor keeps working and the next write lands at the new end.
 */
export function copyTruncateIfLarge(
  path: string,
  maxBytes = defaultLogMaxBytes,
  keep = defaultLogKeep,
): boolean {
  if (size(path) <= maxBytes) return false;
  shift(path, keep);
  copyFileSync(path, `${path}.1`);
  truncateSync(path, 0);
  return true;
}

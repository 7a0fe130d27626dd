import { linkSync, readFileSync, renameSync, unlinkSync, writeFileSync } from "node:fs";
export interface LockInfo {
  pid: number;
  /** The process's start time from /proc (Linux); tells a live pid apart from a reused one. */
  procStart: string | null;
  startedAt: string;
  version: string;
}

/**
 * Checked by hand rather than with zod: `status` and `stop` read this file and must start in well
 * under 150 ms of CPU, and loading zod alone costs about 100 ms.
 */
function parseLockContent(value: unknown): LockInfo | null {
  if (!value || typeof value !== "object") return null;
  const record = value as Record<string, unknown>;
  const { pid, procStart, startedAt, version } = record;
  if (typeof pid !== "number" || !Number.isInteger(pid) || pid <= 0) return null;
  if (procStart !== null && typeof procStart !== "string") return null;
  if (typeof startedAt !== "string" || typeof version !== "string") return null;
  return { pid, procStart, startedAt, version };
}

export class AlreadyRunningError extends Error {
  override name = "AlreadyRunningError";
  constructor(readonly pid: number) {
    super(`already running (pid ${pid})`);
  }
}

/** Fields 3.. of /proc/<pid>/stat; null where /proc is absent (macOS) or the pid is gone. */
function procStat(pid: number): string[] | null {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch (error) {
    if (isCode(error, "ENOENT") || isCode(error, "ESRCH")) return null;
    throw error;
  }
  // The command name (field 2) may hold spaces and parentheses; fields after the last ")" are fixed.
  return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
}

/** Field 22 of /proc/<pid>/stat (start time in clock ticks since boot). */
export function processStartTime(pid: number): string | null {
  return procStat(pid)?.[19] ?? null;
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    // A killed daemon whose parent has not reaped it yet is a zombie: signalable, but dead.
    return procStat(pid)?.[0] !== "Z";
  } catch (error) {
    // EPERM: the pid exists but belongs to someone else — alive, and not our daemon to signal.
    if (isCode(error, "EPERM")) return true;
    if (isCode(error, "ESRCH")) return false;
    throw error;
  }
}

/** The lock's owner when it is a live process that started when the lock says; null when stale or absent. */
export function readLiveLock(path: string): LockInfo | null {
  const info = readLock(path);
  if (!info) return null;
  return holderIsAlive(info) ? info : null;
}

export function readLock(path: string): LockInfo | null {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    if (isCode(error, "ENOENT")) return null;
    throw error;
  }
  // A torn or foreign file cannot name a holder; it is treated as stale and replaced.
  return parseLockContent(safeJson(text));
}

function holderIsAlive(info: LockInfo): boolean {
  if (!isAlive(info.pid)) return false;
  if (info.procStart === null) return true;
  const current = processStartTime(info.pid);
  // A different start time means the pid was reused after a crash (e.g. after a reboot).
  return current === null || current === info.procStart;
}

export interface HeldLock {
  info: LockInfo;
  release(): void;
}

/**
 * One daemon per MERCURY_HOME. The lock file is created with link(2), which fails when it exists, so
 * two starters cannot both win. A lock whose holder is dead (kill -9) or whose pid was reused is
 * stale and taken over; a live holder gives AlreadyRunningError with its pid.
 */
export function acquireLock(path: string, version: string): HeldLock {
  const info: LockInfo = {
    pid: process.pid,
    procStart: processStartTime(process.pid),
    startedAt: new Date().toISOString(),
    version,
  };
  const candidate = `${path}.${process.pid}.tmp`;
  writeFileSync(candidate, `${JSON.stringify(info)}\n`, { mode: 0o600 });
  try {
    for (let attempt = 0; attempt < 3; attempt += 1) {
      try {
        linkSync(candidate, path);
        return {
          info,
          release: () => releaseLock(path, info.pid),
        };
      } catch (error) {
        if (!isCode(error, "EEXIST")) throw error;
      }
      const holder = readLock(path);
      if (holder && holderIsAlive(holder)) throw new AlreadyRunningError(holder.pid);
      takeOverStale(path, holder);
    }
    const holder = readLock(path);
    throw new AlreadyRunningError(holder?.pid ?? 0);
  } finally {
    unlinkSync(candidate);
  }
}

/** Moves a stale lock aside; if another starter replaced it meanwhile, puts theirs back. */
function takeOverStale(path: string, judged: LockInfo | null): void {
  const aside = `${path}.stale.${process.pid}`;
  try {
    renameSync(path, aside);
  } catch (error) {
    if (isCode(error, "ENOENT")) return;
    throw error;
  }
  const moved = readLock(aside);
  if (moved && judged && moved.pid !== judged.pid && holderIsAlive(moved)) {
    renameSync(aside, path);
    throw new AlreadyRunningError(moved.pid);
  }
  unlinkSync(aside);
}

function releaseLock(path: string, pid: number): void {
  const holder = readLock(path);
  // Never remove a lock another process took over.
  if (holder && holder.pid !== pid) return;
  try {
    unlinkSync(path);
  } catch (error) {
    if (!isCode(error, "ENOENT")) throw error;
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    // Reported by the caller as a stale (unreadable) lock.
    return null;
  }
}

export function isCode(error: unknown, code: string): boolean {
  return (
    typeof error === "object" &&
    error !== null &&
    "code" in error &&
    (error as { code: unknown }).code === code
  );
}

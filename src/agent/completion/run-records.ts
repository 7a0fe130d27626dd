/**
 * Verification records this process made while running the task, as opposed to records loaded from
 * the ledger (written by a run that was then killed, cancelled, paused or restarted). Between two
 * runs the files can change by hand; only a matching fingerprint ties an earlier run's pass to
 * today's files. Within one uninterrupted run, the order of calls alone is trusted where the change
 * picture cannot fingerprint the files (an unconfirmed picture).
 */
const madeInThisRun = new WeakSet<object>();

export function recordedNow<Record extends object>(record: Record): Record {
  madeInThisRun.add(record);
  return record;
}

export function wasRecordedNow(record: object): boolean {
  return madeInThisRun.has(record);
}

/**
 * The fingerprint a check run is evidence for: the files it started on. A check that rewrote them (a
 * hook the task added writes source after the assertions ran) passed on files that are gone; recorded
 * with the files it ended on, its pass stood for them (session 12).
 */
export function checkedFingerprint(before: string | null, after: string | null): string | null {
  return before !== null && after !== null && visiblePart(before) !== visiblePart(after) ? before : after;
}

/**
 * A fingerprint without its digest of ignored and skipped files (after the `+`: build output, caches).
 * Most checks rewrite some of those on every run — a `pretest` build, vitest's results cache,
 * `__pycache__` — so only a change to the files git or the snapshot sees means a check rewrote what it
 * checked; otherwise every such project would pause as "changes the files each time".
 */
function visiblePart(fingerprint: string): string {
  const separator = fingerprint.indexOf("+");
  return separator === -1 ? fingerprint : fingerprint.slice(0, separator);
}

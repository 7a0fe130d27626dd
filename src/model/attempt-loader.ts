/**
 * The AI SDK (`ai` with zod and its provider utilities: about 170 files, 1.9 MB) loads with the first
 * model call, not with the provider chain: the daemon answers on its socket, and memory commands run,
 * without it. One load per process, shared by every chain and by `preloadAttempt`.
 */
let attemptModule: Promise<typeof import("./attempt.js")> | undefined;

export function loadAttempt(): Promise<typeof import("./attempt.js")> {
  attemptModule ??= import("./attempt.js");
  return attemptModule;
}

/**
 * Starts loading the SDK now, for a command that calls the model as soon as it can (`mercury run`):
 * its files are read while the command's own modules load, not after them. Resolves when it is
 * loaded. Never rejects: a failed load is reported by the model call that awaits the same promise
 * (here it is only marked as handled, so Node does not end the process before that call sees it).
 */
export async function preloadAttempt(): Promise<void> {
  await loadAttempt().then(undefined, reportedByTheCall);
}

function reportedByTheCall(): void {}

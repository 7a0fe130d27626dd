/**
 * How long a test may wait for something that WILL happen: the given bounds (5–10 s) are what an idle
 * machine needs, but CI is a loaded 2-core box where starting one Node process can take seconds. A
 * wait ends as soon as its condition holds, so a long bound costs nothing when things work; it only
 * decides how long a real failure takes to report. The test timeout (vitest.config.ts) is the same.
 */
export const loadedMachineWaitMs = 100_000;

export function patientDeadline(timeoutMs: number): number {
  return Date.now() + Math.max(timeoutMs, loadedMachineWaitMs);
}

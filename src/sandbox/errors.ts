/**
 * Sandbox failures, typed by cause so callers decide without parsing messages: no sandbox on this
 * machine (`unavailable`), a command the sandbox will not contain as asked (`refused`, e.g. the
 * home folder as a writable workspace). The third cause, a command killed for going over a limit,
 * is data on the finished run (`CommandRun.limitExceeded`), not a throw.
 */
export class SandboxUnavailableError extends Error {
  readonly kind = "unavailable" as const;
  constructor(
    readonly reason: string,
    readonly fix: string,
  ) {
    super(`no OS sandbox is available to contain the command: ${reason}. Fix: ${fix}`);
    this.name = "SandboxUnavailableError";
  }
}

export class SandboxRefusedError extends Error {
  readonly kind = "refused" as const;
  constructor(message: string) {
    super(message);
    this.name = "SandboxRefusedError";
  }
}

export type SandboxError = SandboxUnavailableError | SandboxRefusedError;

export function isSandboxError(error: unknown): error is SandboxError {
  return error instanceof SandboxUnavailableError || error instanceof SandboxRefusedError;
}

import { createHash, randomBytes, timingSafeEqual } from "node:crypto";

/** How long a login link stays usable when nobody opens it. */
export const loginTokenTtlMs = 15 * 60_000;
/** A session ends after this long even if used (the daemon's restart ends it sooner). */
export const sessionTtlMs = 12 * 60 * 60_000;
const maxOutstandingTokens = 8;

function secret(): string {
  return randomBytes(32).toString("base64url");
}

function digest(value: string): string {
  return createHash("sha256").update(value).digest("hex");
}

/** Compares secrets without leaking, through timing, how many leading characters matched. */
export function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(digest(given), "hex");
  const b = Buffer.from(digest(expected), "hex");
  return timingSafeEqual(a, b);
}

/**
 * One-time login tokens. Only their hashes are kept, so nothing in memory or a heap dump can be
 * replayed; a token is removed the moment it is exchanged, and expires unused.
 */
export class LoginTokens {
  private readonly tokens = new Map<string, number>();

  constructor(private readonly now: () => number = Date.now) {}

  issue(): string {
    this.prune();
    // Bounded: an old unused link stops working when many newer ones were issued.
    while (this.tokens.size >= maxOutstandingTokens) {
      const oldest = this.tokens.keys().next().value;
      if (oldest === undefined) break;
      this.tokens.delete(oldest);
    }
    const token = secret();
    this.tokens.set(digest(token), this.now() + loginTokenTtlMs);
    return token;
  }

  /** True once per issued, unexpired token. */
  consume(token: string): boolean {
    this.prune();
    const key = digest(token);
    const expires = this.tokens.get(key);
    if (expires === undefined) return false;
    this.tokens.delete(key);
    return expires > this.now();
  }

  private prune(): void {
    const now = this.now();
    for (const [key, expires] of this.tokens) if (expires <= now) this.tokens.delete(key);
  }
}

export interface Session {
  /** The anti-CSRF token every state-changing request must carry (form field or header). */
  csrf: string;
  expiresAt: number;
}

/** Sessions live in the daemon's memory: a restart logs everyone out, nothing to steal from disk. */
export class Sessions {
  private readonly sessions = new Map<string, Session>();

  constructor(private readonly now: () => number = Date.now) {}

  create(): { id: string; session: Session } {
    const id = secret();
    const session = { csrf: secret(), expiresAt: this.now() + sessionTtlMs };
    this.sessions.set(digest(id), session);
    return { id, session };
  }

  get(id: string | undefined): Session | null {
    if (!id) return null;
    const key = digest(id);
    const session = this.sessions.get(key);
    if (!session) return null;
    if (session.expiresAt <= this.now()) {
      this.sessions.delete(key);
      return null;
    }
    return session;
  }

  end(id: string): void {
    this.sessions.delete(digest(id));
  }

  clear(): void {
    this.sessions.clear();
  }
}

import { createHash, randomInt } from "node:crypto";
import { z } from "zod";
import { type Clock, systemClock } from "../../agent/clock.js";
import type { SqliteDatabase } from "../../storage/database.js";

/** No 0/O/1/I/L: the code is read off a terminal and typed into a phone. */
const CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789";
const CODE_LENGTH = 8;
export const PAIRING_CODE_TTL_MS = 10 * 60 * 1000;

export type TelegramRole = "owner" | "member";

export interface TelegramUser {
  userId: number;
  role: TelegramRole;
  username: string | null;
  approvedAt: string;
  revokedAt: string | null;
}

const userRow = z.object({
  user_id: z.number().int(),
  role: z.enum(["owner", "member"]),
  username: z.string().nullable(),
  approved_at: z.string(),
  revoked_at: z.string().nullable(),
});

const codeRow = z.object({ code_hash: z.string(), expires_at: z.string(), used_at: z.string().nullable() });

export function hashPairingCode(code: string): string {
  return createHash("sha256").update(normalizeCode(code)).digest("hex");
}

function normalizeCode(code: string): string {
  return code.trim().toUpperCase().replace(/[\s-]/g, "");
}

/** True when a message text looks like a pairing code, so a bare code works as well as `/start CODE`. */
export function looksLikePairingCode(text: string): boolean {
  const normalized = normalizeCode(text);
  return normalized.length === CODE_LENGTH && [...normalized].every((char) => CODE_ALPHABET.includes(char));
}

export function userKeyFor(user: Pick<TelegramUser, "userId" | "role">): string {
  return user.role === "owner" ? "owner" : `telegram:${user.userId}`;
}

export type RedeemResult =
  | { ok: true; user: TelegramUser; replacedOwner: number | null }
  | { ok: false; reason: "unknown" | "expired" | "used" };

/** Who may talk to the bot. Every method is one statement or one transaction: safe across processes. */
export class TelegramAccess {
  constructor(
    private readonly database: SqliteDatabase,
    private readonly clock: Clock = systemClock,
  ) {}

  createPairingCode(): { code: string; expiresAt: string } {
    let code = "";
    for (let index = 0; index < CODE_LENGTH; index++) code += CODE_ALPHABET[randomInt(CODE_ALPHABET.length)];
    const now = this.clock.now();
    const expiresAt = new Date(now.getTime() + PAIRING_CODE_TTL_MS).toISOString();
    this.database
      .prepare("INSERT INTO telegram_pairing_codes (code_hash, created_at, expires_at) VALUES (?, ?, ?)")
      .run(hashPairingCode(code), now.toISOString(), expiresAt);
    return { code, expiresAt };
  }

  /**
   * Redeeming a code makes the sender the owner. Only someone at the machine can create a code, so
   * a new pairing replaces a previous owner (lost phone, new account); the old owner is revoked.
   */
  redeemPairingCode(code: string, userId: number, username: string | null): RedeemResult {
    const redeem = this.database.transaction((): RedeemResult => {
      const row = this.database
        .prepare("SELECT code_hash, expires_at, used_at FROM telegram_pairing_codes WHERE code_hash = ?")
        .get(hashPairingCode(code));
      if (row === undefined) return { ok: false, reason: "unknown" };
      const parsed = codeRow.parse(row);
      if (parsed.used_at !== null) return { ok: false, reason: "used" };
      const now = this.clock.now().toISOString();
      if (parsed.expires_at <= now) return { ok: false, reason: "expired" };
      this.database
        .prepare("UPDATE telegram_pairing_codes SET used_at = ?, used_by = ? WHERE code_hash = ?")
        .run(now, userId, parsed.code_hash);
      const previous = this.owner();
      const replacedOwner = previous !== null && previous.userId !== userId ? previous.userId : null;
      if (replacedOwner !== null) {
        this.database
          .prepare("UPDATE telegram_users SET revoked_at = ? WHERE user_id = ?")
          .run(now, replacedOwner);
      }
      this.upsert(userId, "owner", username, now);
      return { ok: true, user: this.requireUser(userId), replacedOwner };
    });
    return redeem();
  }

  approve(userId: number, username: string | null = null): TelegramUser {
    const existing = this.user(userId);
    if (existing?.role === "owner" && existing.revokedAt === null) return existing;
    this.upsert(userId, "member", username ?? existing?.username ?? null, this.clock.now().toISOString());
    return this.requireUser(userId);
  }

  /** Returns false when the user had no active access. */
  revoke(userId: number): boolean {
    const result = this.database
      .prepare("UPDATE telegram_users SET revoked_at = ? WHERE user_id = ? AND revoked_at IS NULL")
      .run(this.clock.now().toISOString(), userId);
    return result.changes > 0;
  }

  list(): TelegramUser[] {
    return this.database
      .prepare("SELECT * FROM telegram_users ORDER BY role = 'owner' DESC, approved_at")
      .all()
      .map((row) => toUser(userRow.parse(row)));
  }

  user(userId: number): TelegramUser | null {
    const row = this.database.prepare("SELECT * FROM telegram_users WHERE user_id = ?").get(userId);
    return row === undefined ? null : toUser(userRow.parse(row));
  }

  /** The active user with this id, or null: the single gate in front of the gateway. */
  activeUser(userId: number): TelegramUser | null {
    const user = this.user(userId);
    return user !== null && user.revokedAt === null ? user : null;
  }

  owner(): TelegramUser | null {
    const row = this.database
      .prepare("SELECT * FROM telegram_users WHERE role = 'owner' AND revoked_at IS NULL")
      .get();
    return row === undefined ? null : toUser(userRow.parse(row));
  }

  private upsert(userId: number, role: TelegramRole, username: string | null, now: string): void {
    this.database
      .prepare(
        `INSERT INTO telegram_users (user_id, role, username, approved_at, revoked_at) VALUES (?, ?, ?, ?, NULL)
         ON CONFLICT(user_id) DO UPDATE SET role = excluded.role,
           username = COALESCE(excluded.username, telegram_users.username),
           approved_at = excluded.approved_at, revoked_at = NULL`,
      )
      .run(userId, role, username, now);
  }

  private requireUser(userId: number): TelegramUser {
    const user = this.user(userId);
    if (user === null) throw new Error(`telegram user ${userId} vanished during an update`);
    return user;
  }
}

function toUser(row: z.infer<typeof userRow>): TelegramUser {
  return {
    userId: row.user_id,
    role: row.role,
    username: row.username,
    approvedAt: row.approved_at,
    revokedAt: row.revoked_at,
  };
}

import { describe, expect, it } from "vitest";
import {
  hashPairingCode,
  looksLikePairingCode,
  PAIRING_CODE_TTL_MS,
  TelegramAccess,
  userKeyFor,
} from "../../../src/channels/telegram/access.js";
import { openMemoryDatabase } from "../../../src/storage/database.js";

function setup() {
  let now = new Date("2026-01-01T00:00:00.000Z");
  const database = openMemoryDatabase();
  const access = new TelegramAccess(database, { now: () => now });
  return { database, access, advance: (ms: number) => (now = new Date(now.getTime() + ms)) };
}

describe("TelegramAccess", () => {
  it("creates distinct 8-character codes and stores only their hash", () => {
    const { access, database } = setup();
    const codes = new Set(Array.from({ length: 50 }, () => access.createPairingCode().code));
    expect(codes.size).toBe(50);
    for (const code of codes) expect(looksLikePairingCode(code)).toBe(true);
    const stored = JSON.stringify(database.prepare("SELECT * FROM telegram_pairing_codes").all());
    for (const code of codes) {
      expect(stored).not.toContain(code);
      expect(stored).toContain(hashPairingCode(code));
    }
  });

  it("a code works once, within 10 minutes, and makes the redeemer the owner", () => {
    const { access, advance } = setup();
    const { code, expiresAt } = access.createPairingCode();
    expect(expiresAt).toBe("2026-01-01T00:10:00.000Z");
    const result = access.redeemPairingCode(
      ` ${code.slice(0, 4)}-${code.slice(4).toLowerCase()} `,
      11,
      "alice",
    );
    expect(result).toMatchObject({
      ok: true,
      user: { userId: 11, role: "owner", username: "alice" },
      replacedOwner: null,
    });
    expect(access.redeemPairingCode(code, 12, null)).toEqual({ ok: false, reason: "used" });
    const late = access.createPairingCode();
    advance(PAIRING_CODE_TTL_MS);
    expect(access.redeemPairingCode(late.code, 12, null)).toEqual({ ok: false, reason: "expired" });
    expect(access.redeemPairingCode("ZZZZZZZZ", 12, null)).toEqual({ ok: false, reason: "unknown" });
    expect(access.owner()?.userId).toBe(11);
  });

  it("a new pairing replaces the previous owner, who loses access", () => {
    const { access } = setup();
    access.redeemPairingCode(access.createPairingCode().code, 11, null);
    const result = access.redeemPairingCode(access.createPairingCode().code, 22, null);
    expect(result).toMatchObject({ ok: true, replacedOwner: 11 });
    expect(access.activeUser(11)).toBeNull();
    expect(access.owner()?.userId).toBe(22);
  });

  it("approves, revokes and re-approves members with their own userKey", () => {
    const { access } = setup();
    const member = access.approve(33, "bob");
    expect(userKeyFor(member)).toBe("telegram:33");
    expect(access.revoke(33)).toBe(true);
    expect(access.revoke(33)).toBe(false);
    expect(access.activeUser(33)).toBeNull();
    expect(access.approve(33).revokedAt).toBeNull();
    expect(access.list().map((user) => [user.userId, user.role, user.username])).toEqual([
      [33, "member", "bob"],
    ]);
  });

  it("approving the owner does not demote them", () => {
    const { access } = setup();
    access.redeemPairingCode(access.createPairingCode().code, 11, null);
    expect(access.approve(11).role).toBe("owner");
    expect(userKeyFor({ userId: 11, role: "owner" })).toBe("owner");
  });
});

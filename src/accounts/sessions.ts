// Dashboard sessions: a random token in an HttpOnly cookie, stored only as its SHA-256. Expiry
// slides (14 days after the last use) but the row is rewritten at most once an hour.
import { and, eq, lt } from "drizzle-orm";
import { type Db } from "../db/client";
import { accounts, sessions } from "../db/schema";
import { sha256Hex } from "../ids";
import { type AccountView } from "./service";

export const SESSION_TTL_MS = 14 * 24 * 60 * 60 * 1000;
export const SESSION_REFRESH_MS = 60 * 60 * 1000;

export interface SessionLookup {
  account: AccountView;
  /** Set when the expiry was just pushed forward, so the cookie should be re-sent. */
  refreshedUntil: number | null;
}

/** 32 random bytes (256 bits), base64url. */
function newSessionToken(): string {
  return Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("base64url");
}

export function createSession(db: Db, accountId: string, now = Date.now()): { token: string; expiresAt: number } {
  const token = newSessionToken();
  const expiresAt = now + SESSION_TTL_MS;
  db.sqlite
    .transaction(() => {
      db.orm
        .delete(sessions)
        .where(and(eq(sessions.accountId, accountId), lt(sessions.expiresAt, now)))
        .run();
      db.orm
        .insert(sessions)
        .values({ tokenHash: sha256Hex(token), accountId, createdAt: now, expiresAt })
        .run();
    })
    .immediate();
  return { token, expiresAt };
}

const TOKEN = /^[A-Za-z0-9_-]{43}$/;

export function resolveSession(db: Db, token: string | null | undefined, now = Date.now()): SessionLookup | null {
  if (!token || !TOKEN.test(token)) return null;
  const tokenHash = sha256Hex(token);
  const row = db.orm
    .select({ expiresAt: sessions.expiresAt, id: accounts.id, email: accounts.email, plan: accounts.plan })
    .from(sessions)
    .innerJoin(accounts, eq(accounts.id, sessions.accountId))
    .where(eq(sessions.tokenHash, tokenHash))
    .get();
  if (!row) return null;
  if (row.expiresAt <= now) {
    db.orm.delete(sessions).where(eq(sessions.tokenHash, tokenHash)).run();
    return null;
  }
  const account: AccountView = { id: row.id, email: row.email, plan: row.plan };
  const wanted = now + SESSION_TTL_MS;
  if (wanted - row.expiresAt <= SESSION_REFRESH_MS) return { account, refreshedUntil: null };
  db.orm.update(sessions).set({ expiresAt: wanted }).where(eq(sessions.tokenHash, tokenHash)).run();
  return { account, refreshedUntil: wanted };
}

export function deleteSession(db: Db, token: string | null | undefined): void {
  if (!token || !TOKEN.test(token)) return;
  db.orm
    .delete(sessions)
    .where(eq(sessions.tokenHash, sha256Hex(token)))
    .run();
}

// Dashboard sessions: a random token in an HttpOnly cookie, stored only as its SHA-256. Expiry
// slides (14 days after the last use) but the row is rewritten at most once an hour.
import { type Queries } from "../db/queries";
import { type Plan } from "../db/values";
import { Unauthorized } from "../errors";
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

/**
 * A new session of the account. `verifiedHash`: the password hash a sign-in checked the password
 * against; the session is made only if it is still the account's (else Unauthorized). A password
 * change signs every session out, and a sign-in with the old password whose check (tens of
 * milliseconds of argon2) overlapped it made a session after that, which survived the change.
 */
export async function createSession(
  db: Queries,
  accountId: string,
  now = Date.now(),
  verifiedHash?: string,
): Promise<{ token: string; expiresAt: number }> {
  const token = newSessionToken();
  const expiresAt = now + SESSION_TTL_MS;
  const made = await db.transaction(async (tx) => {
    // Every account's expired sessions, not only this one's: an account nobody signs in to again
    // would keep its rows for ever (the privacy review). A sign-in is rare and costs far more.
    await tx.run("DELETE FROM sessions WHERE expires_at < ?", [now]);
    const inserted = await tx.all<{ accountId: string }>(
      `INSERT INTO sessions (token_hash, account_id, created_at, expires_at)
       SELECT ?, id, ?, ? FROM accounts WHERE id = ?${verifiedHash === undefined ? "" : " AND password_hash = ?"}
       RETURNING account_id AS "accountId"`,
      [sha256Hex(token), now, expiresAt, accountId, ...(verifiedHash === undefined ? [] : [verifiedHash])],
    );
    return inserted.length > 0;
  });
  // The password changed (or the account went) while it was being checked: the old one signs in no more.
  if (!made) throw new Unauthorized("Unauthorized", "invalid_credentials");
  return { token, expiresAt };
}

const TOKEN = /^[A-Za-z0-9_-]{43}$/;

export async function resolveSession(db: Queries, token: string | null | undefined, now = Date.now()): Promise<SessionLookup | null> {
  if (!token || !TOKEN.test(token)) return null;
  const tokenHash = sha256Hex(token);
  const row = await db.get<{ expiresAt: number; id: string; email: string; plan: Plan }>(
    `SELECT s.expires_at AS "expiresAt", a.id AS id, a.email AS email, a.plan AS plan
     FROM sessions s JOIN accounts a ON a.id = s.account_id WHERE s.token_hash = ?`,
    [tokenHash],
  );
  if (!row) return null;
  if (row.expiresAt <= now) {
    await db.run("DELETE FROM sessions WHERE token_hash = ?", [tokenHash]);
    return null;
  }
  const account: AccountView = { id: row.id, email: row.email, plan: row.plan };
  const wanted = now + SESSION_TTL_MS;
  if (wanted - row.expiresAt <= SESSION_REFRESH_MS) return { account, refreshedUntil: null };
  await db.run("UPDATE sessions SET expires_at = ? WHERE token_hash = ?", [wanted, tokenHash]);
  return { account, refreshedUntil: wanted };
}

export async function deleteSession(db: Queries, token: string | null | undefined): Promise<void> {
  if (!token || !TOKEN.test(token)) return;
  await db.run("DELETE FROM sessions WHERE token_hash = ?", [sha256Hex(token)]);
}

// Accounts and passwords. Queries on the accounts table live here only; the CLI, the auth routes
// and the dashboard call these functions.
import { type Config } from "../config";
import { type Queries } from "../db/queries";
import { type accounts } from "../db/schema";
import { PLANS, type Plan } from "../db/values";
import { Conflict, Forbidden, Invalid, NotFound } from "../errors";
import { newId } from "../ids";

export const MIN_PASSWORD = 8;
// Bounds the hashing work a single request can ask for.
const MAX_PASSWORD = 1024;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@.]+$/;

export interface AccountView {
  id: string;
  email: string;
  plan: Plan;
}

export type AccountRow = typeof accounts.$inferSelect;

export function accountView(row: Pick<AccountRow, "id" | "email" | "plan">): AccountView {
  return { id: row.id, email: row.email, plan: row.plan };
}

/** Trimmed and lowercased; throws Invalid when it is not an address. */
export function normalizeEmail(value: unknown): string {
  if (typeof value !== "string") throw new Invalid("email: give an email address.", "invalid_email");
  const email = value.trim().toLowerCase();
  if (email.length > 254 || !EMAIL.test(email)) {
    throw new Invalid("email: this is not an email address.", "invalid_email");
  }
  return email;
}

/** `field`: the name the request gave the password (a password change's is new_password). */
export function validatePassword(value: unknown, field = "password"): string {
  if (typeof value !== "string") throw notAPassword(value, field);
  // Characters as people count them (code points): four emoji are four characters, not eight.
  const characters = [...value].length;
  if (characters < MIN_PASSWORD) {
    throw new Invalid(`${field}: use at least ${MIN_PASSWORD} characters.`, "invalid_password");
  }
  if (characters > MAX_PASSWORD) {
    throw new Invalid(`${field}: use at most ${MAX_PASSWORD} characters.`, "invalid_password");
  }
  return value;
}

function notAPassword(value: unknown, field: string): Invalid {
  return new Invalid(
    value === undefined || value === null ? `${field}: give a password.` : `${field}: must be a string.`,
    "invalid_password",
  );
}

export function parsePlan(value: unknown): Plan {
  if (typeof value === "string" && (PLANS as readonly string[]).includes(value)) return value as Plan;
  throw new Invalid(`plan: must be one of ${PLANS.join(", ")}.`, "invalid_plan");
}

// OWASP's argon2id baseline (19 MiB, 2 passes). Each hash holds its memory while it runs, so at
// most HASH_CONCURRENCY run at once: a burst of logins queues instead of exhausting RAM. Sign-in
// checks go ahead of new hashes (signups, account creation) in the queue, so a flood of signups
// cannot make the owner's login wait behind it.
const ARGON2 = { algorithm: "argon2id", memoryCost: 19_456, timeCost: 2 } as const;
const HASH_CONCURRENCY = 4;
let hashing = 0;
const waitingVerify: Array<() => void> = [];
const waitingHash: Array<() => void> = [];

async function limited<T>(queue: Array<() => void>, work: () => Promise<T>): Promise<T> {
  if (hashing >= HASH_CONCURRENCY) await new Promise<void>((resolve) => queue.push(resolve));
  else hashing++;
  try {
    return await work();
  } finally {
    // The slot passes straight to the next in line (sign-ins first), or is freed.
    const next = waitingVerify.shift() ?? waitingHash.shift();
    if (next) next();
    else hashing--;
  }
}

export function hashPassword(password: string): Promise<string> {
  return limited(waitingHash, () => Bun.password.hash(password, ARGON2));
}

let dummyHash: Promise<string> | null = null;

/**
 * Checks a password against the account's hash, or against a dummy hash of the same cost when the
 * account does not exist, so that both cases take about the same time.
 */
export async function verifyPassword(password: string, hash: string | null): Promise<boolean> {
  if (hash === null) {
    dummyHash ??= hashPassword(crypto.randomUUID());
    const dummy = await dummyHash;
    await limited(waitingVerify, () => Bun.password.verify(password, dummy));
    return false;
  }
  return limited(waitingVerify, () => Bun.password.verify(password, hash));
}

const ACCOUNT_COLUMNS = `id, email, password_hash AS "passwordHash", plan, created_at AS "createdAt"`;

/**
 * The account `spyglass demo` seeds (demo/). It is never the instance's owner (its password is
 * printed on the terminal): the owner is the first other account. It is an account all the same, so
 * it closes the first-run signup (CONTRACT §3: open while the instance has no account); after the
 * demo, the owner's account is made with the CLI, as `spyglass demo` says.
 */
export const DEMO_ACCOUNT_EMAIL = "demo@spyglass-demo.example.com";

/** How many accounts the instance has, and how many of them are not the demo's (none: no owner yet). */
export async function countAccounts(db: Queries): Promise<{ all: number; real: number }> {
  const row = await db.get<{ all_: number; real_: number }>(
    "SELECT count(*) AS all_, count(CASE WHEN email <> ? THEN 1 END) AS real_ FROM accounts",
    [DEMO_ACCOUNT_EMAIL],
  );
  return { all: Number(row?.all_ ?? 0), real: Number(row?.real_ ?? 0) };
}

/** Whether the instance has no owner yet: no account but, perhaps, the demo's. */
export async function ownerMissing(db: Queries): Promise<boolean> {
  return (await countAccounts(db)).real === 0;
}

export async function findAccountByEmail(db: Queries, email: string): Promise<AccountRow | null> {
  let normalized: string;
  try {
    normalized = normalizeEmail(email);
  } catch {
    return null;
  }
  return (await db.get<AccountRow>(`SELECT ${ACCOUNT_COLUMNS} FROM accounts WHERE email = ?`, [normalized])) ?? null;
}

/** An account by id (it runs on every authenticated tool request whose principal is not cached). */
export async function getAccount(db: Queries, accountId: string): Promise<AccountView> {
  const row = await db.get<AccountView>("SELECT id, email, plan FROM accounts WHERE id = ?", [accountId]);
  if (!row) throw new NotFound("Account not found.", "account_not_found");
  return accountView(row);
}

/** Ids of the accounts on a paid plan (the ones whose brands are tracked). */
/**
 * The accounts whose brands tracking covers: on a paid plan, the demo's left out (its answers are
 * made up, and asking real engines for it would spend the operator's money on a demo).
 */
export async function listPaidAccountIds(db: Queries): Promise<string[]> {
  const rows = await db.all<{ id: string }>("SELECT id FROM accounts WHERE plan <> 'none' AND email <> ?", [DEMO_ACCOUNT_EMAIL]);
  return rows.map((row) => row.id);
}

/** Whether the account is `spyglass demo`'s (its brand's answers are made up; the schedule leaves it out). */
export async function isDemoAccount(db: Queries, accountId: string): Promise<boolean> {
  return (await db.get("SELECT 1 AS demo FROM accounts WHERE id = ? AND email = ?", [accountId, DEMO_ACCOUNT_EMAIL])) !== undefined;
}

/**
 * The demo's account while no other account exists: it keeps a fresh instance's first signup closed
 * (with no account left, the next visitor to sign up would own the instance), so it may not be
 * deleted until the owner's account exists.
 */
export async function isKeptDemoAccount(db: Queries, accountId: string): Promise<boolean> {
  return (await isDemoAccount(db, accountId)) && (await countAccounts(db)).real === 0;
}

/** Deletes the account and, through the schema's cascades, everything it owns. */
export async function deleteAccount(db: Queries, accountId: string): Promise<void> {
  await db.run("DELETE FROM accounts WHERE id = ?", [accountId]);
}

export interface NewAccount {
  email: unknown;
  password: unknown;
  plan?: unknown;
}

/**
 * Creates an account. `mayCreate`, called inside the write transaction, lets signup apply its
 * policy atomically (two simultaneous "first" signups cannot both succeed); the plan it returns, if
 * any, is the account's.
 */
export async function createAccount(
  db: Queries,
  input: NewAccount,
  mayCreate: (existing: { all: number; real: number }) => Plan | undefined = () => undefined,
): Promise<AccountView> {
  const email = normalizeEmail(input.email);
  const password = validatePassword(input.password);
  const plan = input.plan === undefined ? "none" : parsePlan(input.plan);
  const passwordHash = await hashPassword(password);
  const row: AccountRow = { id: newId("acc"), email, passwordHash, plan, createdAt: Date.now() };
  return db.transaction(async (tx) => {
    await tx.lock("accounts");
    row.plan = mayCreate(await countAccounts(tx)) ?? row.plan;
    if (await tx.get("SELECT id FROM accounts WHERE email = ?", [email])) {
      throw new Conflict("An account with this email already exists.", "email_taken");
    }
    await tx.run("INSERT INTO accounts (id, email, password_hash, plan, created_at) VALUES (?, ?, ?, ?, ?)", [
      row.id,
      row.email,
      row.passwordHash,
      row.plan,
      row.createdAt,
    ]);
    return accountView(row);
  });
}

/**
 * Signup over HTTP (CONTRACT §3): open while the instance has no account; afterwards only when the
 * config says `[auth] signup = "open"`. The policy is checked before the password is hashed (a
 * refused signup costs nothing), and again inside the write transaction (two simultaneous "first"
 * signups cannot both succeed).
 */
export async function signup(db: Queries, config: Config, input: NewAccount): Promise<AccountView> {
  const policy = (existing: { all: number; real: number }): Plan | undefined => {
    if (existing.all > 0 && config.auth.signup !== "open") {
      throw new Forbidden("Signup is closed on this instance; ask its administrator for an account.", "signup_closed");
    }
    // The owner (the first account but the demo's), who runs the server, has every part of it
    // (Autopilot); later accounts start on none until the owner gives them a plan.
    return existing.real === 0 ? "autopilot" : undefined;
  };
  policy(await countAccounts(db));
  return await createAccount(db, { email: input.email, password: input.password }, policy);
}

export async function setAccountPlan(db: Queries, email: string, plan: unknown): Promise<AccountView> {
  const parsed = parsePlan(plan);
  const row = await db.get<AccountView>("UPDATE accounts SET plan = ? WHERE email = ? RETURNING id, email, plan", [
    parsed,
    normalizeEmail(email),
  ]);
  if (!row) throw new NotFound(`No account has the email ${email.trim().toLowerCase()}.`, "account_not_found");
  return accountView(row);
}

/**
 * Sets an account's password (the operator's way back in for a forgotten or leaked one) and ends
 * every session of the account, so that whoever held the old password is signed out too.
 */
export async function setAccountPassword(db: Queries, email: string, password: unknown): Promise<AccountView & { sessions_ended: number }> {
  const hash = await hashPassword(validatePassword(password));
  return await db.transaction(async (tx) => {
    const row = await tx.get<AccountView>("UPDATE accounts SET password_hash = ? WHERE email = ? RETURNING id, email, plan", [
      hash,
      normalizeEmail(email),
    ]);
    if (!row) throw new NotFound(`No account has the email ${email.trim().toLowerCase()}.`, "account_not_found");
    const ended = await tx.all<{ n: number }>("DELETE FROM sessions WHERE account_id = ? RETURNING 1 AS n", [row.id]);
    return { ...accountView(row), sessions_ended: ended.length };
  });
}

/** Whether `password` is the account's own (a person confirming a change to their account). */
export async function isAccountPassword(db: Queries, accountId: string, password: unknown, field = "password"): Promise<boolean> {
  const offered = checkPasswordSize(password, field);
  const row = await db.get<{ hash: string }>(`SELECT password_hash AS "hash" FROM accounts WHERE id = ?`, [accountId]);
  return await verifyPassword(offered, row?.hash ?? null);
}

/**
 * A person's change of their own password: set, and every other session of the account signed out
 * (`keepToken`'s stays: the person changing it). Connected apps stay connected; after a leak, the
 * operator's `spyglass account password` disconnects them too. Returns the sessions ended.
 */
export async function changeOwnPassword(db: Queries, accountId: string, password: unknown, keepTokenHash: string): Promise<number> {
  const hash = await hashPassword(validatePassword(password, "new_password"));
  return await db.transaction(async (tx) => {
    await tx.run("UPDATE accounts SET password_hash = ? WHERE id = ?", [hash, accountId]);
    const ended = await tx.all<{ n: number }>("DELETE FROM sessions WHERE account_id = ? AND token_hash <> ? RETURNING 1 AS n", [
      accountId,
      keepTokenHash,
    ]);
    return ended.length;
  });
}

/** A password offered at sign-in: a string no longer than any password could be. */
export function checkPasswordSize(value: unknown, field = "password"): string {
  if (typeof value !== "string") throw notAPassword(value, field);
  // In UTF-16 units, of which a character (validatePassword counts those) takes at most two: a
  // password of 600 emoji could be set but not signed in with (found by a review).
  if (value.length > 2 * MAX_PASSWORD) throw new Invalid(`${field}: no password is this long.`, "invalid_password");
  return value;
}

/**
 * The account whose email and password match, with the hash the password was checked against (a
 * session is made only while it is still the account's: createSession), or null (in about the same
 * time either way).
 */
export async function authenticate(
  db: Queries,
  email: unknown,
  password: unknown,
): Promise<{ account: AccountView; passwordHash: string } | null> {
  const offered = checkPasswordSize(password);
  if (typeof email !== "string") throw new Invalid("email: give an email address.", "invalid_email");
  const row = await findAccountByEmail(db, email);
  const ok = await verifyPassword(offered, row?.passwordHash ?? null);
  return ok && row ? { account: accountView(row), passwordHash: row.passwordHash } : null;
}

/** Resolves `--email` for CLI commands: the account or a NotFound naming the address. */
export async function requireAccountByEmail(db: Queries, email: string): Promise<AccountRow> {
  const row = await findAccountByEmail(db, email);
  if (!row) throw new NotFound(`No account has the email ${email.trim().toLowerCase()}.`, "account_not_found");
  return row;
}

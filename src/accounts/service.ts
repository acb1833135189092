// Accounts and passwords. Queries on the accounts table live here only; the CLI, the auth routes
// and the dashboard call these functions.
import { count, eq, ne, sql } from "drizzle-orm";
import { type Config } from "../config";
import { type Db } from "../db/client";
import { accounts, PLANS, type Plan } from "../db/schema";
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

export function validatePassword(value: unknown): string {
  if (typeof value !== "string") throw new Invalid("password: give a password.", "invalid_password");
  if (value.length < MIN_PASSWORD) {
    throw new Invalid(`password: use at least ${MIN_PASSWORD} characters.`, "invalid_password");
  }
  if (value.length > MAX_PASSWORD) {
    throw new Invalid(`password: use at most ${MAX_PASSWORD} characters.`, "invalid_password");
  }
  return value;
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

export function countAccounts(db: Db): number {
  return db.orm.select({ n: count() }).from(accounts).get()?.n ?? 0;
}

/** Whether whoever reaches the server first can sign up and become its owner (no account yet). */
export function ownerSignupOpen(db: Db): boolean {
  return countAccounts(db) === 0;
}

export function findAccountByEmail(db: Db, email: string): AccountRow | null {
  let normalized: string;
  try {
    normalized = normalizeEmail(email);
  } catch {
    return null;
  }
  return db.orm.select().from(accounts).where(eq(accounts.email, normalized)).get() ?? null;
}

/** An account by id; prepared once per connection, as it runs on every authenticated tool request. */
export function getAccount(db: Db, accountId: string): AccountView {
  const byId = db.prepared("accounts.byId", () =>
    db.orm
      .select({ id: accounts.id, email: accounts.email, plan: accounts.plan })
      .from(accounts)
      .where(eq(accounts.id, sql.placeholder("id")))
      .prepare(),
  );
  const row = byId.get({ id: accountId });
  if (!row) throw new NotFound("Account not found.", "account_not_found");
  return accountView(row);
}

/** Ids of the accounts on a paid plan (the ones whose brands are tracked). */
export function listPaidAccountIds(db: Db): string[] {
  return db.orm
    .select({ id: accounts.id })
    .from(accounts)
    .where(ne(accounts.plan, "none"))
    .all()
    .map((row) => row.id);
}

/** Deletes the account and, through the schema's cascades, everything it owns. */
export function deleteAccount(db: Db, accountId: string): void {
  db.orm.delete(accounts).where(eq(accounts.id, accountId)).run();
}

export interface NewAccount {
  email: unknown;
  password: unknown;
  plan?: unknown;
}

/**
 * Creates an account. `mayCreate`, called inside the write transaction, lets signup apply its
 * policy atomically (two simultaneous "first" signups cannot both succeed).
 */
export async function createAccount(
  db: Db,
  input: NewAccount,
  mayCreate: (existingAccounts: number) => void = () => {},
): Promise<AccountView> {
  const email = normalizeEmail(input.email);
  const password = validatePassword(input.password);
  const plan = input.plan === undefined ? "none" : parsePlan(input.plan);
  const passwordHash = await hashPassword(password);
  const row: AccountRow = { id: newId("acc"), email, passwordHash, plan, createdAt: Date.now() };
  return db.sqlite
    .transaction(() => {
      mayCreate(countAccounts(db));
      if (db.orm.select({ id: accounts.id }).from(accounts).where(eq(accounts.email, email)).get()) {
        throw new Conflict("An account with this email already exists.", "email_taken");
      }
      db.orm.insert(accounts).values(row).run();
      return accountView(row);
    })
    .immediate();
}

/**
 * Signup over HTTP (CONTRACT §3): open while the instance has no account; afterwards only when the
 * config says `[auth] signup = "open"`. The policy is checked before the password is hashed (a
 * refused signup costs nothing), and again inside the write transaction (two simultaneous "first"
 * signups cannot both succeed).
 */
export function signup(db: Db, config: Config, input: NewAccount): Promise<AccountView> {
  const policy = (existing: number) => {
    if (existing > 0 && config.auth.signup !== "open") {
      throw new Forbidden("Signup is closed on this instance; ask its administrator for an account.", "signup_closed");
    }
  };
  policy(countAccounts(db));
  return createAccount(db, { email: input.email, password: input.password }, policy);
}

export function setAccountPlan(db: Db, email: string, plan: unknown): AccountView {
  const parsed = parsePlan(plan);
  const row = db.orm
    .update(accounts)
    .set({ plan: parsed })
    .where(eq(accounts.email, normalizeEmail(email)))
    .returning()
    .get();
  if (!row) throw new NotFound(`No account has the email ${email.trim().toLowerCase()}.`, "account_not_found");
  return accountView(row);
}

/** A password offered at sign-in: a string no longer than any password could be. */
export function checkPasswordSize(value: unknown): string {
  if (typeof value !== "string" || value.length > MAX_PASSWORD) {
    throw new Invalid("password: give a password.", "invalid_password");
  }
  return value;
}

/** The account whose email and password match, or null (in about the same time either way). */
export async function authenticate(db: Db, email: unknown, password: unknown): Promise<AccountView | null> {
  const offered = checkPasswordSize(password);
  if (typeof email !== "string") throw new Invalid("email: give an email address.", "invalid_email");
  const row = findAccountByEmail(db, email);
  const ok = await verifyPassword(offered, row?.passwordHash ?? null);
  return ok && row ? accountView(row) : null;
}

/** Resolves `--email` for CLI commands: the account or a NotFound naming the address. */
export function requireAccountByEmail(db: Db, email: string): AccountRow {
  const row = findAccountByEmail(db, email);
  if (!row) throw new NotFound(`No account has the email ${email.trim().toLowerCase()}.`, "account_not_found");
  return row;
}

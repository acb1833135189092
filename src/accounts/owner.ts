// The instance's owner (CONTRACT §7): the first account. It alone lists accounts, creates them and
// sets any account's plan over HTTP; the CLI can do the same on the machine itself.
import { asc, eq } from "drizzle-orm";
import { type Db } from "../db/client";
import { accounts } from "../db/schema";
import { Forbidden, NotFound } from "../errors";
import { iso } from "../ids";
import { type AccountView, accountView, parsePlan } from "./service";

export interface ListedAccount extends AccountView {
  created_at: string;
  owner: boolean;
}

function ownerId(db: Db): string | null {
  return db.orm.select({ id: accounts.id }).from(accounts).orderBy(asc(accounts.createdAt), asc(accounts.id)).limit(1).get()?.id ?? null;
}

export function isOwner(db: Db, accountId: string): boolean {
  return ownerId(db) === accountId;
}

/** Throws Forbidden unless `accountId` is the owner's. */
export function requireOwner(db: Db, accountId: string): void {
  if (!isOwner(db, accountId)) throw new Forbidden("Only the instance's owner can manage accounts.", "owner_only");
}

export function listAccounts(db: Db): ListedAccount[] {
  const rows = db.orm.select().from(accounts).orderBy(asc(accounts.createdAt), asc(accounts.id)).all();
  return rows.map((row, i) => ({ ...accountView(row), created_at: iso(row.createdAt), owner: i === 0 }));
}

export function setPlanOfAccount(db: Db, accountId: string, plan: unknown): AccountView {
  const row = db.orm
    .update(accounts)
    .set({ plan: parsePlan(plan) })
    .where(eq(accounts.id, accountId))
    .returning()
    .get();
  if (!row) throw new NotFound("Account not found.", "account_not_found");
  return accountView(row);
}

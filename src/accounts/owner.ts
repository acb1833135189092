// The instance's owner (CONTRACT §7): the first account (the demo's never is: accounts/service.ts). It alone lists accounts, creates them and
// sets any account's plan over HTTP; the CLI can do the same on the machine itself.
import { type Queries } from "../db/queries";
import { type Plan } from "../db/values";
import { Forbidden, NotFound } from "../errors";
import { iso } from "../ids";
import { type AccountView, accountView, DEMO_ACCOUNT_EMAIL, parsePlan } from "./service";

export interface ListedAccount extends AccountView {
  created_at: string;
  owner: boolean;
}

async function ownerId(db: Queries): Promise<string | null> {
  return (
    (await db.get<{ id: string }>("SELECT id FROM accounts WHERE email <> ? ORDER BY created_at, id LIMIT 1", [DEMO_ACCOUNT_EMAIL]))?.id ??
    null
  );
}

export async function isOwner(db: Queries, accountId: string): Promise<boolean> {
  return (await ownerId(db)) === accountId;
}

/** Throws Forbidden unless `accountId` is the owner's. */
export async function requireOwner(db: Queries, accountId: string): Promise<void> {
  if (!(await isOwner(db, accountId))) throw new Forbidden("Only the instance's owner can manage accounts.", "owner_only");
}

export async function listAccounts(db: Queries): Promise<ListedAccount[]> {
  const rows = await db.all<AccountView & { createdAt: number }>(
    `SELECT id, email, plan, created_at AS "createdAt" FROM accounts ORDER BY created_at, id`,
  );
  const owner = rows.find((row) => row.email !== DEMO_ACCOUNT_EMAIL);
  return rows.map((row) => ({ ...accountView(row), created_at: iso(row.createdAt), owner: row === owner }));
}

export async function setPlanOfAccount(db: Queries, accountId: string, plan: unknown): Promise<AccountView> {
  const row = await db.get<{ id: string; email: string; plan: Plan }>(
    "UPDATE accounts SET plan = ? WHERE id = ? RETURNING id, email, plan",
    [parsePlan(plan), accountId],
  );
  if (!row) throw new NotFound("Account not found.", "account_not_found");
  return accountView(row);
}

// A number that moves when another connection (another process included) commits a write to the
// database, for caches that must notice writes they were not told about. On SQLite it is
// `PRAGMA data_version`: the connection's own writes leave it alone, any other connection's commit
// moves it. It takes a shared-memory lock, so callers read it at most every few milliseconds.
import { type Queries } from "./queries";

export async function changeStamp(db: Queries): Promise<number> {
  // Issue 21: PostgreSQL instances will learn of each other's writes by LISTEN/NOTIFY instead.
  if (db.dialect !== "sqlite") return 0;
  const row = await db.get<{ data_version: number }>("PRAGMA data_version");
  return row?.data_version ?? 0;
}

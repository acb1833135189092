// How one Spyglass instance on PostgreSQL learns that another has changed what it caches (a key's
// revocation, a plan, a brand, a publish): statement-level triggers on those tables NOTIFY
// `spyglass_changes` when the writing transaction commits (drizzle-pg's migrations create them), and
// every instance LISTENs on a connection of its own. The stamp is a counter that moves on each
// notification, on each of this instance's own writes to those tables (at once, without waiting for
// the round trip through the server), whenever the listening connection is (re)established (what
// was sent while it was down is lost) and, as a bound on staleness should a notification be lost
// anyway, every STALE_AFTER_MS.
import type postgres from "postgres";
import { log } from "../log";

export const CHANGES_CHANNEL = "spyglass_changes";

/** The tables whose changes the instances' caches must see (the triggers are on these). */
export const WATCHED_TABLES = [
  "accounts",
  "brands",
  "api_keys",
  "articles",
  "competitors",
  "oauth_clients",
  "oauth_grants",
  "oauth_tokens",
] as const;

/** The longest a cache may go on from a lost notification. */
export const STALE_AFTER_MS = 5_000;

const WRITE = /^\s*(INSERT|UPDATE|DELETE|WITH)\b/i;
const WATCHED = new RegExp(`\\b(${WATCHED_TABLES.join("|")})\\b`, "gi");
const NONE: readonly string[] = [];

export class ChangeFeed {
  /** Moves on every change, of any table. */
  private counter = 0;
  /** Moves when any table may have changed unseen: a (re)connection of the listener, the staleness bound. */
  private everything = 0;
  /** Moves on each change of one table (its notifications and this instance's own writes). */
  private readonly byTable = new Map<string, number>();
  private readonly timer: ReturnType<typeof setInterval>;
  private listening: Promise<{ unlisten(): Promise<void> } | null>;
  private readonly ownWrites = new Map<string, readonly string[]>();

  constructor(pool: postgres.Sql) {
    this.listening = pool
      .listen(
        CHANGES_CHANNEL,
        // The trigger's payload is the table's name (changeTriggersSql).
        (table) => this.bump(table ? [table] : NONE),
        () => this.bumpEverything(),
      )
      .catch((error: unknown) => {
        // Without the feed the caches still expire every STALE_AFTER_MS.
        log.warn("listening for other instances' changes failed", { message: (error as Error).message });
        return null;
      });
    this.timer = setInterval(() => this.bumpEverything(), STALE_AFTER_MS);
    this.timer.unref?.();
  }

  /**
   * Moves whenever anything the caches hold may have changed; with `tables`, only when one of those
   * may have (a cache of articles need not be dropped when a key's last use is written).
   */
  stamp(tables?: readonly string[]): number {
    if (!tables) return this.counter;
    let sum = this.everything;
    for (const table of tables) sum += this.byTable.get(table) ?? 0;
    return sum;
  }

  /**
   * The watched tables a statement writes to (all it names, when it writes at all). The stamp must
   * move once such a write is committed: after the statement itself outside a transaction, after the
   * commit inside one (a cache that re-read in between would otherwise keep the old rows under the
   * new stamp).
   */
  watchedTablesWritten(text: string): readonly string[] {
    let tables = this.ownWrites.get(text);
    if (tables === undefined) {
      if (this.ownWrites.size >= 1_000) this.ownWrites.clear();
      tables = WRITE.test(text) ? [...new Set([...text.matchAll(WATCHED)].map((m) => m[1]!.toLowerCase()))] : NONE;
      this.ownWrites.set(text, tables);
    }
    return tables;
  }

  /** Moves the stamp: a write to these watched tables was committed (by this instance, or another's notification). */
  bump(tables: Iterable<string>): void {
    this.counter++;
    for (const table of tables) this.byTable.set(table, (this.byTable.get(table) ?? 0) + 1);
  }

  private bumpEverything(): void {
    this.counter++;
    this.everything++;
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    const listener = await this.listening;
    await listener?.unlisten().catch(() => {});
  }
}

/** The PostgreSQL text that makes every watched table notify the instances (in drizzle-pg's migrations). */
export function changeTriggersSql(): string {
  const lines = [
    `CREATE OR REPLACE FUNCTION spyglass_notify_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('${CHANGES_CHANNEL}', TG_TABLE_NAME);
  RETURN NULL;
END $$;`,
  ];
  for (const table of WATCHED_TABLES) {
    lines.push(
      `CREATE TRIGGER ${table}_notify_change AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "${table}" FOR EACH STATEMENT EXECUTE FUNCTION spyglass_notify_change();`,
    );
  }
  return lines.join("\n--> statement-breakpoint\n");
}

// An SQLite database file as an older release left it, for the upgrade tests: what the later
// migrations add (tables, indexes, columns, triggers, read from their SQL) is dropped and drizzle's
// journal forgets them (its migrator applies only migrations newer than the last one recorded), so
// opening the file again replays them as an upgrade would.
import { type Database } from "bun:sqlite";
import { EMBEDDED_MIGRATIONS, MIGRATION_JOURNAL } from "../../src/db/migrations";

/** The statement of an earlier migration (before `before`) that last created index `name`. */
function earlierIndex(name: string, before: number): string | undefined {
  for (const { tag } of MIGRATION_JOURNAL.slice(0, before).reverse()) {
    const created = EMBEDDED_MIGRATIONS[tag]!.match(new RegExp(`CREATE (?:UNIQUE )?INDEX (?:IF NOT EXISTS )?\`${name}\`[^;]*;`));
    if (created) return created[0];
  }
  return undefined;
}

/** Undoes every migration after `tag` (which is kept). */
export function downgradeTo(sqlite: Database, tag: string): void {
  const kept = MIGRATION_JOURNAL.findIndex((m) => m.tag === tag) + 1;
  const later = MIGRATION_JOURNAL.slice(kept);
  for (const [offset, { tag }] of [...later.entries()].reverse()) {
    const text = EMBEDDED_MIGRATIONS[tag]!;
    // Indexes first: a column an index covers cannot be dropped.
    for (const [, index] of text.matchAll(/CREATE (?:UNIQUE )?INDEX (?:IF NOT EXISTS )?`(\w+)`/g))
      sqlite.exec(`DROP INDEX IF EXISTS "${index}"`);
    for (const [, table, column] of text.matchAll(/ALTER TABLE `(\w+)` ADD `(\w+)`/g))
      sqlite.exec(`ALTER TABLE "${table}" DROP COLUMN "${column}"`);
    for (const [, trigger] of text.matchAll(/CREATE TRIGGER (?:IF NOT EXISTS )?`(\w+)`/g))
      sqlite.exec(`DROP TRIGGER IF EXISTS "${trigger}"`);
    const tables = [...text.matchAll(/CREATE TABLE (?:IF NOT EXISTS )?`(\w+)`/g)].map((m) => m[1]!);
    for (const table of tables.reverse()) sqlite.exec(`DROP TABLE IF EXISTS "${table}"`);
    // An index this migration replaced (dropped, then created anew) is as the earlier one made it.
    for (const [, index] of text.matchAll(/DROP INDEX (?:IF EXISTS )?`(\w+)`/g)) {
      const created = earlierIndex(index!, kept + offset);
      if (created) sqlite.exec(created);
    }
  }
  sqlite.query("DELETE FROM __drizzle_migrations WHERE created_at >= ?").run(later[0]!.when);
}

/** Undoes every migration after the first: the database as the first release made it. */
export function downgradeToFirstMigration(sqlite: Database): void {
  downgradeTo(sqlite, MIGRATION_JOURNAL[0]!.tag);
}

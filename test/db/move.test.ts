// migrate-to-postgres's copy (src/db/move.ts): an SQLite instance's rows into an empty PostgreSQL
// database, verified by counts and checksums; a non-empty target refused; a changed row caught.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Db, openDatabase } from "../../src/db/client";
import { moveToPostgres, tablesInDependencyOrder, verifyCopy } from "../../src/db/move";
import { openPostgres, type PostgresDb } from "../../src/db/postgres";
import { seedToolServerData } from "../support/fixtures";
import { freshPostgresUrl } from "../support/postgres";

const dir = mkdtempSync(join(tmpdir(), "spyglass-move-"));
const opened: Array<Db | PostgresDb> = [];
let source: Db;

beforeAll(async () => {
  await freshPostgresUrl();
  const path = join(dir, "spyglass.db");
  const seed = await seedToolServerData(path);
  source = openDatabase(path, { create: false });
  opened.push(source);
  // A prompt with three tags, one quoted and not ASCII: PostgreSQL writes the JSON of its tag names
  // in its own spelling (its triggers rewrite them as the tags are copied).
  const { brandId, ids } = seed.a;
  await source.run(
    `INSERT INTO tags (id, brand_id, name, name_key, created_at) VALUES ('tag_move1', ?1, 'Été "deals"', 'été "deals"', 1), ('tag_move2', ?1, 'Zeta', 'zeta', 2)`,
    [brandId],
  );
  await source.run("INSERT INTO prompt_tags (prompt_id, tag_id) VALUES (?1, 'tag_move1'), (?1, 'tag_move2')", [ids.promptId]);
}, 120_000);

afterAll(async () => {
  for (const db of opened.splice(0)) await db.close();
  rmSync(dir, { recursive: true, force: true });
});

async function target(): Promise<PostgresDb> {
  const db = await openPostgres(await freshPostgresUrl());
  opened.push(db);
  return db;
}

const count = async (db: { get<T>(text: string): Promise<T | undefined> }, table: string) =>
  (await db.get<{ n: number }>(`SELECT count(*) AS n FROM "${table}"`))!.n;

test("every table is copied with its rows, counted and checksummed on both sides", async () => {
  const pg = await target();
  const copied: string[] = [];
  const report = await moveToPostgres(source, pg, { onTable: (table) => copied.push(table) });
  expect(report.tables.map((t) => t.table).sort()).toEqual(
    tablesInDependencyOrder()
      .map((t) => t.name)
      .sort(),
  );
  for (const table of report.tables) {
    expect(table.rows).toBe(await count(source, table.table));
    expect(await count(pg, table.table)).toBe(table.rows);
    expect(table.checksum).toMatch(/^[0-9a-f]{16}$/);
  }
  expect(report.rows).toBeGreaterThan(20);
  // Each prompt's tag names on the target are the source's (as sets: the order is the database's).
  const names = async (db: Db | PostgresDb) =>
    Object.fromEntries(
      (await db.all<{ id: string; tag_names: string }>("SELECT id, tag_names FROM prompts ORDER BY id")).map((row) => [
        row.id,
        (JSON.parse(row.tag_names) as string[]).sort(),
      ]),
    );
  const fromSource = await names(source);
  expect(Object.values(fromSource).some((tags) => tags.length === 3)).toBe(true);
  expect(await names(pg)).toEqual(fromSource);
  // The planner has the copied rows' statistics at once (ANALYZE), not when autovacuum comes round:
  // a table never analysed has reltuples -1.
  const answers = await count(source, "answers");
  const reltuples = await pg.get<{ n: number }>("SELECT reltuples AS n FROM pg_class WHERE relname = 'answers' AND relkind = 'r'");
  expect(Number(reltuples!.n)).toBe(answers);
  // Parents before children: a brand's account is copied before it.
  expect(copied.indexOf("accounts")).toBeLessThan(copied.indexOf("brands"));
  expect(copied.indexOf("answers")).toBeLessThan(copied.indexOf("mentions"));
  // The copied instance works: a new answer takes an id after the copied ones.
  const before = (await pg.get<{ id: number }>("SELECT max(id) AS id FROM answers"))!.id;
  const brand = (await pg.get<{ brandId: string; promptId: string }>(
    `SELECT brand_id AS "brandId", id AS "promptId" FROM prompts LIMIT 1`,
  ))!;
  const inserted = await pg.get<{ id: number }>(
    "INSERT INTO answers (brand_id, prompt_id, engine, model, status, text, created_at) VALUES (?, ?, 'fake', 'fake-1', 'ok', 'x', ?) RETURNING id",
    [brand.brandId, brand.promptId, Date.now()],
  );
  expect(inserted!.id).toBeGreaterThan(before);
});

test("a target holding any row is refused before anything is written", async () => {
  const pg = await target();
  await pg.run("INSERT INTO accounts (id, email, password_hash, plan, created_at) VALUES ('acc_x', 'x@example.com', '!', 'none', 1)");
  await expect(moveToPostgres(source, pg)).rejects.toThrow(/The PostgreSQL database is not empty \(table \w+ has rows\)/);
  expect(await count(pg, "brands")).toBe(0);
  expect(await count(pg, "answers")).toBe(0);
});

test("a row that differs after the copy fails the verification, naming its table", async () => {
  const pg = await target();
  await moveToPostgres(source, pg);
  await pg.run("UPDATE competitors SET name = name || ' (changed)' WHERE id = (SELECT min(id) FROM competitors)");
  await expect(verifyCopy(source, pg)).rejects.toThrow(/The copy of table competitors does not match the source/);
});

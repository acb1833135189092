// Long reads off the serving thread (src/db/reader.ts): on SQLite a scan runs on a reader process's own
// connection, so the serving thread's event loop goes on while it runs; it returns what the serving
// connection would (its last commit, or inside a transaction that transaction's own writes), errors
// as SQLite's, and a reader process that cannot start leaves every scan answered on the serving thread.
import { afterEach, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { openDatabase, type SqliteDb } from "../../src/db/client";
import { type ReaderOptions } from "../../src/db/reader";
import { READER_ENV } from "../../src/db/reader-process";
import { processAlive } from "../support/binary";
import { captureLog } from "../support/log";
import { scratchDir } from "../support/scratch";

let db: SqliteDb | null = null;

afterEach(() => {
  db?.close();
  db = null;
});

function open(reader?: ReaderOptions): SqliteDb {
  db = openDatabase(join(scratchDir("spyglass-reader-"), "spyglass.db"), { reader });
  db.sqlite.exec("CREATE TABLE items (id INTEGER PRIMARY KEY, name TEXT, score REAL, data BLOB)");
  const insert = db.sqlite.prepare("INSERT INTO items (name, score, data) VALUES (?, ?, ?)");
  db.sqlite.transaction(() => {
    for (let i = 0; i < 500; i++)
      insert.run(`item ${i} “${"é".repeat(i % 3)}”`, i % 7 === 0 ? null : i / 3, new Uint8Array([i % 256, 1, 2]));
  })();
  return db;
}

async function until(check: () => boolean, what: string): Promise<void> {
  for (let i = 0; i < 200 && !check(); i++) await Bun.sleep(25);
  if (!check()) throw new Error(`timed out waiting until ${what}`);
}

// 3,000,000 steps of a recursive CTE: a statement that takes a while on any machine (~300 ms here).
const SLOW = "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?) SELECT count(*) AS n, sum(i % 7) AS s FROM n";

test("a scan returns the rows all() returns, parameters bound alike, and runs on the reader process", async () => {
  const db = open();
  const sql =
    "SELECT id, name, score, data FROM items WHERE id > ? AND (name LIKE ? OR score IS ?) ORDER BY score DESC NULLS LAST, id LIMIT ?";
  for (const params of [
    [10, "item 4%", null, 50],
    [0, "%é%", 12, 1000],
    [490, "nothing", 3.5, 5],
  ]) {
    const before = db.reader.answered;
    const scanned = await db.scan(sql, params);
    expect(db.reader.answered).toBe(before + 1);
    expect(scanned).toEqual(await db.all(sql, params));
  }
  // BLOB and bigint parameters, which JSON has no form for, bind as on the serving connection.
  const byBlob = "SELECT id, data FROM items WHERE data = ? AND id > ? ORDER BY id";
  for (const params of [
    [new Uint8Array([4, 1, 2]), 0n],
    [new Uint8Array([200, 1, 2]), 199n],
  ]) {
    const scanned = await db.scan(byBlob, params);
    expect(scanned.length).toBeGreaterThan(0);
    expect(scanned).toEqual(await db.all(byBlob, params));
  }
  // A dialect pair: SQLite's text.
  expect(await db.scan({ sqlite: "SELECT count(*) AS n FROM items", postgres: "not this" })).toEqual([{ n: 500 }]);
  expect(db.reader.live).toBe(true);
});

test("while a long scan runs, the serving thread's event loop goes on", async () => {
  const db = open();
  await db.scan("SELECT 1 AS one"); // the process started
  const events: string[] = [];
  const scanned = db.scan<{ n: number }>(SLOW, [3_000_000]).then((rows) => {
    events.push("scan");
    return rows;
  });
  // On the serving thread the statement would hold the loop until it ended: these would come after.
  await Bun.sleep(1);
  events.push("timer");
  await new Promise((resolve) => setImmediate(resolve));
  events.push("immediate");
  expect((await scanned)[0]!.n).toBe(3_000_000);
  expect(events).toEqual(["timer", "immediate", "scan"]);
});

test("a scan sees what is committed: a transaction's writes inside it, and only once committed outside it", async () => {
  const db = open();
  let release!: () => void;
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  let inside: unknown[] = [];
  const writing = db.transaction(async (tx) => {
    await tx.run("INSERT INTO items (name) VALUES ('new')");
    inside = await tx.scan("SELECT count(*) AS n FROM items");
    await held;
  });
  await Bun.sleep(5);
  expect(inside).toEqual([{ n: 501 }]);
  // Outside the transaction, which is still open: the last commit, without waiting for it to end.
  expect(await db.scan("SELECT count(*) AS n FROM items")).toEqual([{ n: 500 }]);
  release();
  await writing;
  expect(await db.scan("SELECT count(*) AS n FROM items")).toEqual([{ n: 501 }]);
});

test("scans read together see one snapshot: a commit made meanwhile is in none of them", async () => {
  const db = open();
  const count = "SELECT count(*) AS n FROM items";
  // The process up first: on a loaded machine its start alone can outlast the wait below.
  await db.scan("SELECT 1 AS one");
  const together = db.scanTogether([{ text: count }, { text: SLOW, params: [3_000_000] }, { text: count }]);
  // The serving thread is free while the reader runs the slow statement (~300 ms): a write commits meanwhile.
  await Bun.sleep(100);
  await db.run("INSERT INTO items (name) VALUES ('meanwhile')");
  const [before, , after] = await together;
  expect([before, after]).toEqual([[{ n: 500 }], [{ n: 500 }]]);
  // Read on their own, a later statement sees the commit.
  expect(await db.scan(count)).toEqual([{ n: 501 }]);
  // Inside a transaction, on its connection, with its own writes.
  await db.transaction(async (tx) => {
    await tx.run("INSERT INTO items (name) VALUES ('inside')");
    expect(await tx.scanTogether([{ text: count }, { text: "SELECT max(id) AS id FROM items" }])).toEqual([[{ n: 502 }], [{ id: 502 }]]);
  });
});

test("a scan still under way when the database closes fails with a sentence, and the close does not wait for it", async () => {
  const db = open();
  await db.scan("SELECT 1 AS one");
  const pending = db.scan(SLOW, [3_000_000]).catch((error: unknown) => error as Error & { code?: string });
  await Bun.sleep(10);
  db.close();
  const failed = await pending;
  expect(failed).toBeInstanceOf(Error);
  expect((failed as { code?: string }).code).toBe("stopping");
  expect((failed as Error).message).toContain("The server is stopping");
  // afterEach's close of a closed database is harmless.
});

test("a scan's SQL error is SQLite's, with its code, and the next scan is answered", async () => {
  const db = open();
  const failed = await db.scan("SELECT nope FROM items").catch((error: unknown) => error as Error & { code?: string });
  expect(failed).toBeInstanceOf(Error);
  expect((failed as Error).message).toContain("no such column: nope");
  expect((failed as { code?: string }).code).toBe("SQLITE_ERROR");
  // The reader process's connection is only for reading.
  const write = await db.scan("UPDATE items SET name = 'x' RETURNING id").catch((error: unknown) => error as Error);
  expect((write as Error).message).toContain("readonly");
  expect(await db.all("SELECT count(*) AS n FROM items WHERE name = 'x'")).toEqual([{ n: 0 }]);
  expect(await db.scan("SELECT count(*) AS n FROM items")).toEqual([{ n: 500 }]);
});

test("the reader process stops when idle, and the next scan starts it again", async () => {
  const db = open({ idleMs: 50 });
  expect(db.reader.live).toBe(false);
  await db.scan("SELECT 1 AS one");
  expect(db.reader.live).toBe(true);
  const first = db.reader.pid!;
  expect(processAlive(first)).toBe(true);
  await until(() => !db.reader.live, "the idle process stopped");
  await until(() => !processAlive(first), "the idle process exited");
  const before = db.reader.answered;
  expect(await db.scan("SELECT count(*) AS n FROM items")).toEqual([{ n: 500 }]);
  expect(db.reader.answered).toBe(before + 1);
  expect(db.reader.pid).not.toBe(first);
});

test("a reader process that cannot start, or dies, leaves scans answered on the serving thread, says so, and is tried again later", async () => {
  const commands: Array<[string[], string]> = [
    [["/nonexistent/spyglass"], "ENOENT"],
    [[process.execPath, "-e", 'console.error("the reader fell over"); process.exit(3)'], "it exited (code 3): the reader fell over"],
  ];
  for (const [command, reason] of commands) {
    const db = open({ command, retryMs: 1_000 });
    const logged = await captureLog(async () => {
      expect(await db.scan("SELECT count(*) AS n FROM items")).toEqual([{ n: 500 }]);
      expect(await db.scan("SELECT max(id) AS n FROM items")).toEqual([{ n: 500 }]);
      expect(await db.scan("SELECT min(id) AS n FROM items")).toEqual([{ n: 1 }]);
      await until(() => db.reader.pid === null, "the failed process was dropped");
      await Bun.sleep(50);
    });
    expect(db.reader.answered).toBe(0);
    expect(logged.match(/the reader process stopped: long reads run on the serving thread/g)?.length).toBe(1);
    expect(logged).toContain(reason);
    // Past the wait, the next scan starts it again (and it fails again, waiting twice as long).
    await Bun.sleep(1_050);
    const again = await captureLog(async () => {
      expect(await db.scan("SELECT count(*) AS n FROM items")).toEqual([{ n: 500 }]);
      await Bun.sleep(200);
    });
    expect(again).toContain('"retry_in_s":2');
    db.close();
  }
  // Killed while it holds a scan: the scan is answered all the same, and past the wait a new
  // process answers the next one.
  const db = open({ retryMs: 300 });
  await db.scan("SELECT 1 AS one");
  const first = db.reader.pid!;
  const logged = await captureLog(async () => {
    const pending = db.scan(SLOW, [3_000_000]);
    await Bun.sleep(20);
    process.kill(first, "SIGKILL");
    expect(await pending).toEqual(await db.all(SLOW, [3_000_000]));
  });
  expect(logged).toContain("the reader process stopped");
  expect(logged).toContain("SIGKILL");
  await Bun.sleep(350);
  const before = db.reader.answered;
  expect(await db.scan("SELECT count(*) AS n FROM items")).toEqual([{ n: 500 }]);
  expect(db.reader.answered).toBe(before + 1);
  expect(db.reader.pid).not.toBe(first);
});

test("the signals that stop a server do not stop its reader process: it goes when the server closes it", async () => {
  const db = open();
  await db.scan("SELECT 1 AS one");
  const pid = db.reader.pid!;
  const logged = await captureLog(async () => {
    for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) process.kill(pid, signal);
    await Bun.sleep(200);
    const before = db.reader.answered;
    expect(await db.scan("SELECT count(*) AS n FROM items")).toEqual([{ n: 500 }]);
    expect(db.reader.answered).toBe(before + 1);
  });
  expect(logged).not.toContain("the reader process stopped");
  expect(db.reader.pid).toBe(pid);
  db.close();
  await until(() => !processAlive(pid), "the closed database's reader process exited");
});

test("the executable as a reader process, run by hand, says what it is and exits 2", async () => {
  const proc = Bun.spawn([process.execPath, join(import.meta.dir, "../../src/entry.ts")], {
    env: { ...process.env, [READER_ENV]: "1" },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [err, code] = await Promise.all([new Response(proc.stderr).text(), proc.exited]);
  expect(code).toBe(2);
  expect(err.trim()).toBe(`${READER_ENV} is set by a serving Spyglass for its reader process; unset it to use the CLI.`);
});

test("a command that scans exits when it is done, and a server gone takes its reader process with it", async () => {
  const dir = scratchDir("spyglass-reader-exit-");
  const script = join(dir, "command.ts");
  writeFileSync(
    script,
    `import { openDatabase } from ${JSON.stringify(join(import.meta.dir, "../../src/db/client.ts"))};
const db = openDatabase(${JSON.stringify(join(dir, "spyglass.db"))});
const rows = await db.scan("SELECT 41 + 1 AS answer");
console.log(JSON.stringify({ rows, answered: db.reader.answered, pid: db.reader.pid }));
if (process.argv[2] === "hang") setInterval(() => {}, 1000);
`,
  );
  const run = async (hang: boolean) => {
    const proc = Bun.spawn([process.execPath, script, ...(hang ? ["hang"] : [])], { stdout: "pipe", stderr: "pipe" });
    const timer = setTimeout(() => proc.kill(), 30_000);
    const lines = proc.stdout.pipeThrough(new TextDecoderStream()).getReader();
    let out = "";
    while (!out.includes("\n")) {
      const next = await lines.read();
      if (next.done) break;
      out += next.value;
    }
    const printed = JSON.parse(out.trim()) as { rows: unknown; answered: number; pid: number };
    if (hang) proc.kill("SIGKILL");
    const code = await proc.exited;
    clearTimeout(timer);
    return { printed, code };
  };
  const done = await run(false);
  expect(done.code).toBe(0);
  expect(done.printed).toMatchObject({ rows: [{ answer: 42 }], answered: 1 });
  // A server killed outright (no stop, no close): its reader process sees its channel close and exits.
  const killed = await run(true);
  expect(killed.printed).toMatchObject({ rows: [{ answer: 42 }], answered: 1 });
  await until(() => !processAlive(killed.printed.pid), "the orphaned reader process exited");
});

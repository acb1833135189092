// A database whose storage refuses writes (a full disk; SQLite's max_page_count stands in for it,
// giving the same SQLITE_FULL): every door answers a write 503 with a sentence saying so and that
// nothing was saved, the log says it once rather than with a stack per request, /healthz says
// "degraded" (still 200: reads work), and writes work again once there is room.
import { afterEach, describe, expect, test } from "bun:test";
import { findAccountByEmail } from "../../src/accounts/service";
import { type SqliteDb } from "../../src/db/client";
import { StorageHealth } from "../../src/db/storage-health";
import { createApiKey } from "../../src/keys/service";
import { configureLog } from "../../src/log";
import { BUILD, VERSION } from "../../src/version";
import { TEST_DIALECT } from "../support/database";
import { type TestApp, testApp } from "../support/http";
import { captureLog } from "../support/log";

let t: TestApp;
afterEach(async () => {
  configureLog({ quiet: true });
  await t?.close();
});

const FULL_SENTENCE =
  "The server could not save this: its database's storage refuses writes (a full disk?). Nothing was changed; try again once there is room.";

const prompts = (round: number) =>
  Array.from({ length: 100 }, (_, i) => ({ text: `Which CRM suits team ${round}-${i}? ${"detail ".repeat(40)}` }));

test.if(TEST_DIALECT === "sqlite")(
  "a full disk: writes are refused in words through every door, /healthz says so, and writes work again with room",
  async () => {
    t = await testApp();
    const cookie = await t.signIn("a@example.com", { plan: "visibility" });
    const brandId = (await t.call("POST", "/api/brands", { cookie, body: { name: "Acme" } })).json.brand.id as string;
    const account = (await findAccountByEmail(t.db, "a@example.com"))!;
    const key = (await createApiKey(t.db, account.id, { name: "k", brandId })).plaintext;
    await t.signIn("filler@example.com", { plan: "visibility" });
    const filler = (await findAccountByEmail(t.db, "filler@example.com"))!;
    const count = async () =>
      (await t.call("POST", `/api/brands/${brandId}/tools/list_prompts`, { cookie, body: { limit: 100 } })).json.prompts.length;
    expect(await count()).toBe(0);

    const sqlite = (t.db as SqliteDb).sqlite;
    const pages = (sqlite.query("PRAGMA page_count").get() as { page_count: number }).page_count;
    sqlite.exec(`PRAGMA max_page_count = ${pages}`);
    // Another account's brands fill the brands table's pages (a small row may still fit in a page
    // that has room, as on a real full disk), so that one more brand needs a page there is no room for.
    for (let i = 0; ; i++) {
      try {
        sqlite.run(
          "INSERT INTO brands (id, account_id, name, domain, aliases, site_key, created_at, updated_at) VALUES (?, ?, ?, '', '[]', ?, 1, 1)",
          [`brd_fill${i}`, filler.id, `Filler ${i}`, `sk_fill${i}`],
        );
      } catch {
        break;
      }
    }
    let viaDashboard: Awaited<ReturnType<TestApp["call"]>> | undefined;
    let viaPlainRoute: Awaited<ReturnType<TestApp["call"]>> | undefined;
    let viaKey: Awaited<ReturnType<TestApp["call"]>> | undefined;
    const logged = await captureLog(async () => {
      viaDashboard = await t.call("POST", `/api/brands/${brandId}/tools/create_prompts`, { cookie, body: { prompts: prompts(1) } });
      viaPlainRoute = await t.call("POST", "/api/brands", { cookie, body: { name: `Beta ${"x".repeat(40)}` } });
      viaKey = await t.call("POST", "/api/mcp/mcp", {
        body: { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "create_prompts", arguments: { prompts: prompts(2) } } },
        headers: { authorization: `Bearer ${key}`, accept: "application/json, text/event-stream" },
      });
    });
    // The dashboard's tool door and a plain dashboard route: 503, the sentence, a time to come back.
    expect(viaDashboard!.status).toBe(503);
    expect(viaDashboard!.json).toEqual({ error: FULL_SENTENCE, code: "storage_full" });
    expect(viaDashboard!.headers.get("retry-after")).toBe("60");
    expect(viaPlainRoute!.status).toBe(503);
    expect(viaPlainRoute!.json).toEqual({ error: FULL_SENTENCE, code: "storage_full" });
    expect(viaPlainRoute!.headers.get("retry-after")).toBe("60");
    // An AI client's tool call: the tool's error, in the same words.
    expect(viaKey!.json.result.isError).toBe(true);
    expect(viaKey!.json.result.content[0].text).toContain("its database's storage refuses writes (a full disk?)");
    // Said once (not once per request), without a stack; nothing reads as an unexpected error.
    const lines = logged
      .trim()
      .split("\n")
      .filter(Boolean)
      .map((line) => JSON.parse(line));
    const said = lines.filter((line) => line.msg.startsWith("a write failed: the database's storage refuses writes"));
    expect(said).toHaveLength(1);
    expect(said[0]).toMatchObject({ level: "error", code: "SQLITE_FULL" });
    expect(lines.some((line) => line.msg === "unhandled error" || line.msg === "tool failed" || "stack" in line)).toBe(false);

    // Reads still work, and the health check says what is wrong.
    expect(await count()).toBe(0);
    let health: Awaited<ReturnType<TestApp["call"]>> | undefined;
    // Logged at info, as any request: only an "ok" probe is logged at debug.
    const probed = await captureLog(async () => {
      health = await t.call("GET", "/healthz");
    });
    expect(probed).toContain('"level":"info","msg":"request"');
    expect(probed).toContain('"path":"/healthz","status":200');
    if (!health) throw new Error("no answer");
    expect(health.status).toBe(200);
    expect(health.json).toEqual({
      status: "degraded",
      version: VERSION,
      build: BUILD,
      reason: "the database's storage refuses writes (a full disk?)",
    });

    // Room again: the same writes work.
    sqlite.exec("PRAGMA max_page_count = 1073741823");
    expect((await t.call("POST", `/api/brands/${brandId}/tools/create_prompts`, { cookie, body: { prompts: prompts(1) } })).status).toBe(
      200,
    );
    expect(await count()).toBe(100);
    expect((await t.call("POST", "/api/brands", { cookie, body: { name: "Beta" } })).status).toBe(201);
  },
);

describe("StorageHealth", () => {
  test("a refused write is reported for a minute after it; a failing checkpoint for as long as it fails", () => {
    configureLog({ quiet: true });
    const health = new StorageHealth();
    expect(health.problem()).toBeNull();
    const now = Date.now();
    health.refused(Object.assign(new Error("database or disk is full"), { code: "SQLITE_FULL" }));
    expect(health.problem(now + 59_000)).toBe("the database's storage refuses writes (a full disk?)");
    expect(health.problem(now + 61_000)).toBeNull();
    health.checkpointFailing = true;
    expect(health.problem(now + 61_000)).not.toBeNull();
    health.checkpointFailing = false;
    expect(health.problem(now + 61_000)).toBeNull();
  });
});

import { afterEach, describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { type Db } from "../../src/db/client";
import { generateApiKey, hashApiKey, isWellFormedApiKey } from "../../src/keys/format";
import { KeyUsage, verifyBearerKey } from "../../src/keys/service";
import { configureLog } from "../../src/log";
import { PASSWORD, sessionCookieOf, type TestApp, testApp } from "../support/http";
import { captureLog } from "../support/log";
import { scratchDir } from "../support/scratch";

let t: TestApp;
afterEach(async () => {
  configureLog({ quiet: true });
  await t?.close();
});

describe("key format", () => {
  test("svc_live_ + 43 base64url characters of 32 random bytes; prefix is its first 13 characters", () => {
    const seen = new Set<string>();
    for (let i = 0; i < 200; i++) {
      const key = generateApiKey();
      expect(key.plaintext).toMatch(/^svc_live_[A-Za-z0-9_-]{43}$/);
      expect(Buffer.from(key.plaintext.slice(9), "base64url")).toHaveLength(32);
      expect(key.prefix).toBe(key.plaintext.slice(0, 13));
      expect(key.hash).toBe(new Bun.CryptoHasher("sha256").update(key.plaintext).digest("hex"));
      seen.add(key.plaintext);
    }
    expect(seen.size).toBe(200);
  });

  test("malformed bearer values are rejected before any database work", async () => {
    const noDb = new Proxy(
      {},
      {
        get: () => {
          throw new Error("the database was touched");
        },
      },
    ) as Db;
    expect(await verifyBearerKey({ db: noDb, keys: new KeyUsage(noDb) }, undefined)).toEqual({ ok: false, reason: "missing" });
    for (const header of [
      "svc_live_x",
      "Bearer svc_live_short",
      `Basic svc_live_${"A".repeat(43)}`,
      `Bearer svc_test_${"A".repeat(43)}`,
      `Bearer svc_live_${"A".repeat(42)}!`,
    ]) {
      expect(await verifyBearerKey({ db: noDb, keys: new KeyUsage(noDb) }, header)).toEqual({ ok: false, reason: "malformed" });
    }
    expect(isWellFormedApiKey(`svc_live_${"A".repeat(44)}`)).toBe(false);
  });

  test("a well-formed but unknown key is unknown", async () => {
    t = await testApp();
    expect(await verifyBearerKey(t.ctx, `Bearer ${generateApiKey().plaintext}`)).toEqual({ ok: false, reason: "unknown" });
  });
});

describe("secrets at rest and in the logs", () => {
  test("the plaintext key, the password and the session token never reach the database file, the WAL or the logs", async () => {
    let plaintext = "";
    let token = "";
    let dbPath = "";
    const logs = await captureLog(
      async () => {
        dbPath = join(scratchDir("spyglass-keys-"), "spyglass.db");
        t = await testApp({ dbPath, quiet: false });
        const signup = await t.call("POST", "/api/auth/signup?password=nope", { body: { email: "a@example.com", password: PASSWORD } });
        token = sessionCookieOf(signup.headers).split("=")[1]!;
        const cookie = sessionCookieOf(signup.headers);
        await t.db.run("UPDATE accounts SET plan = 'visibility'");
        await t.call("POST", "/api/brands", { cookie, body: { name: "Acme" } });
        const created = await t.call("POST", "/api/mcp/keys", { cookie, body: { name: "k" } });
        plaintext = created.json.plaintext;
        expect(plaintext).toMatch(/^svc_live_/);
        expect((await verifyBearerKey(t.ctx, `Bearer ${plaintext}`)).ok).toBe(true);
        await t.ctx.keys.flush();
        await t.call("GET", "/api/mcp/keys", { cookie, headers: { authorization: `Bearer ${plaintext}` } });
        await t.call("POST", "/api/auth/login", { body: { email: "a@example.com", password: PASSWORD } });
        await t.call("POST", "/api/auth/login", { body: { email: "a@example.com", password: `${PASSWORD}-wrong` } });
      },
      { settleMs: 20 },
    );
    expect(logs).toContain('"path":"/api/mcp/keys"');
    expect(logs).toContain("request_id");
    for (const secret of [plaintext, plaintext.slice(13), PASSWORD, token]) {
      expect(logs).not.toContain(secret);
    }
    expect(logs).not.toContain("?password");

    const scan = () => {
      const files = [dbPath, `${dbPath}-wal`].filter(existsSync).map((f) => readFileSync(f).toString("latin1"));
      return files.join("\n");
    };
    const beforeCheckpoint = scan();
    // The scan sees the stored rows: the key's hash is there.
    expect(beforeCheckpoint).toContain(hashApiKey(plaintext));
    expect(existsSync(`${dbPath}-wal`)).toBe(true);
    for (const secret of [plaintext, plaintext.slice(9), PASSWORD, token]) expect(beforeCheckpoint).not.toContain(secret);
    await t.close();
    const afterClose = scan();
    expect(afterClose).toContain(hashApiKey(plaintext));
    for (const secret of [plaintext, plaintext.slice(9), PASSWORD, token]) expect(afterClose).not.toContain(secret);
  });
});

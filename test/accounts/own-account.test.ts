// A person's own account, through the dashboard's HTTP: changing the password (the current one
// confirms it; other sessions are signed out) and deleting the account with everything of it (its
// brands as brand deletion does, its sessions, keys and connected apps), which the instance's owner
// cannot. Wrong passwords are counted per account.
import { afterEach, expect, test } from "bun:test";
import { DEMO_ACCOUNT_EMAIL, findAccountByEmail } from "../../src/accounts/service";
import { brandTables } from "../../src/db/brand-rows";
import { createApiKey } from "../../src/keys/service";
import { writeAnswers } from "../support/answers";
import { seedRecords } from "../support/fixtures";
import { PASSWORD, sessionCookieOf, type TestApp, testApp } from "../support/http";

let t: TestApp;
afterEach(async () => {
  await t?.close();
});

const login = (email: string, password: string) => t.call("POST", "/api/auth/login", { body: { email, password } });

const listBrand = (key: string) =>
  t.call("POST", "/api/mcp/mcp", {
    body: { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "get_brand", arguments: {} } },
    headers: { authorization: `Bearer ${key}`, accept: "application/json, text/event-stream" },
  });

test("a person changes their password with the current one; their other sessions are signed out, this one stays", async () => {
  t = await testApp();
  const cookie = await t.signIn("a@example.com");
  const elsewhere = sessionCookieOf((await login("a@example.com", PASSWORD)).headers);
  const wrong = await t.call("POST", "/api/auth/password", {
    cookie,
    body: { current_password: "not it", new_password: "a new long one" },
  });
  expect(wrong.status).toBe(403);
  expect(wrong.json).toEqual({ error: "current_password: that is not your current password.", code: "wrong_password" });
  const short = await t.call("POST", "/api/auth/password", { cookie, body: { current_password: PASSWORD, new_password: "short" } });
  expect(short.status).toBe(400);
  // The field is named as the request names it (a review found "password: …" for new_password).
  expect(short.json.error).toBe("new_password: use at least 8 characters.");
  const missing = await t.call("POST", "/api/auth/password", { cookie, body: { current_password: PASSWORD } });
  expect(missing.json.error).toBe("new_password: give a password.");
  const number = await t.call("POST", "/api/auth/password", { cookie, body: { current_password: PASSWORD, new_password: 12345678 } });
  expect(number.json.error).toBe("new_password: must be a string.");
  // The current password again is refused, and signs no session out.
  const same = await t.call("POST", "/api/auth/password", { cookie, body: { current_password: PASSWORD, new_password: PASSWORD } });
  expect(same.status).toBe(400);
  expect(same.json).toEqual({ error: "new_password: this is your current password; choose a new one.", code: "same_password" });
  expect((await t.call("GET", "/api/auth/me", { cookie: elsewhere })).status).toBe(200);
  expect((await login("a@example.com", PASSWORD)).status).toBe(200);

  const changed = await t.call("POST", "/api/auth/password", {
    cookie,
    body: { current_password: PASSWORD, new_password: "a new long one" },
  });
  expect(changed.status).toBe(200);
  // The two logins above made two more sessions: both go, the one that changed it stays.
  expect(changed.json).toEqual({ changed: true, other_sessions_ended: 2 });
  expect((await t.call("GET", "/api/auth/me", { cookie })).status).toBe(200);
  expect((await t.call("GET", "/api/auth/me", { cookie: elsewhere })).status).toBe(401);
  expect((await login("a@example.com", PASSWORD)).status).toBe(401);
  expect((await login("a@example.com", "a new long one")).status).toBe(200);
});

test("five wrong passwords from one session, and its next confirmation waits (429), the right password too; another session is not locked out", async () => {
  t = await testApp();
  const cookie = await t.signIn("a@example.com");
  for (let i = 0; i < 5; i++) {
    const res = await t.call("DELETE", "/api/auth/me", { cookie, body: { password: `guess ${i}` } });
    expect(res.status).toBe(403);
  }
  const res = await t.call("POST", "/api/auth/password", { cookie, body: { current_password: PASSWORD, new_password: "a new long one" } });
  expect(res.status).toBe(429);
  expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
  expect(res.json.code).toBe("password_throttled");
  // Someone holding a stolen session cannot keep the account's person from changing the password
  // (which signs that session out).
  const own = sessionCookieOf((await login("a@example.com", PASSWORD)).headers);
  const changed = await t.call("POST", "/api/auth/password", {
    cookie: own,
    body: { current_password: PASSWORD, new_password: "a new long one" },
  });
  expect(changed.json).toEqual({ changed: true, other_sessions_ended: 1 });
  expect((await t.call("GET", "/api/auth/me", { cookie })).status).toBe(401);
});

test("the demo's account is not deleted while it alone keeps a fresh instance's first signup closed; beside an owner it may go", async () => {
  t = await testApp();
  const cookie = await t.signIn(DEMO_ACCOUNT_EMAIL);
  // The dashboard's account page says so before a password is asked for (a review found it asked first).
  expect((await t.call("GET", "/api/auth/me", { cookie })).json.demo_kept).toBe(true);
  const res = await t.call("DELETE", "/api/auth/me", { cookie, body: { password: PASSWORD } });
  expect(res.status).toBe(409);
  expect(res.json.code).toBe("demo_account");
  expect(await findAccountByEmail(t.db, DEMO_ACCOUNT_EMAIL)).not.toBeNull();
  // Signup is still closed to strangers.
  const stranger = await t.call("POST", "/api/auth/signup", { body: { email: "stranger@example.com", password: PASSWORD } });
  expect(stranger.status).toBe(403);
  await t.signIn("owner@example.com", { plan: "autopilot" });
  expect((await t.call("GET", "/api/auth/me", { cookie })).json.demo_kept).toBe(false);
  expect((await t.call("DELETE", "/api/auth/me", { cookie, body: { password: PASSWORD } })).status).toBe(200);
  expect(await findAccountByEmail(t.db, DEMO_ACCOUNT_EMAIL)).toBeNull();
});

test("a run under way in one of the account's brands refuses the deletion before anything goes", async () => {
  t = await testApp();
  await t.signIn("owner@example.com", { plan: "autopilot" });
  const cookie = await t.signIn("client@example.com", { plan: "visibility" });
  const first = (await t.call("POST", "/api/brands", { cookie, body: { name: "First Co" } })).json.brand;
  const busy = (await t.call("POST", "/api/brands", { cookie, body: { name: "Busy Co" } })).json.brand;
  await t.db.run(
    "INSERT INTO tracking_runs (id, brand_id, status, trigger, answers_planned, started_at) VALUES ('run_x', ?, 'running', 'cli', 10, ?)",
    [busy.id, Date.now()],
  );
  const res = await t.call("DELETE", "/api/auth/me", { cookie, body: { password: PASSWORD } });
  expect(res.status).toBe(409);
  expect(res.json).toEqual({
    error:
      "A tracking run of Busy Co is under way: delete the account once it has ended (the brand's Tracking page shows its progress). Nothing was deleted.",
    code: "tracking_running",
  });
  expect((await t.call("GET", "/api/brands", { cookie })).json.brands.map((b: { id: string }) => b.id)).toEqual([first.id, busy.id]);
  // Both brands are open to runs again: the refusal closed nothing for good (a closed brand's run
  // is refused as brand_deleting before anything else is looked at).
  const started = await t.ctx.tracking.runner.start(first.id, { trigger: "tool" }).catch((error: { code?: string }) => error);
  expect((started as { code?: string }).code).not.toBe("brand_deleting");
  await t.db.run("UPDATE tracking_runs SET status = 'completed' WHERE id = 'run_x'");
  expect((await t.call("DELETE", "/api/auth/me", { cookie, body: { password: PASSWORD } })).json).toEqual({
    deleted: { email: "client@example.com", brands: 2 },
  });
});

test("the instance's owner cannot delete their account; nothing of it changes", async () => {
  t = await testApp();
  const cookie = await t.signIn("owner@example.com", { plan: "autopilot" });
  expect((await t.call("POST", "/api/brands", { cookie, body: { name: "Acme" } })).status).toBe(201);
  const res = await t.call("DELETE", "/api/auth/me", { cookie, body: { password: PASSWORD } });
  expect(res.status).toBe(409);
  expect(res.json.code).toBe("owner_account");
  expect(res.json.error).toContain("This account owns this Spyglass instance");
  expect((await t.call("GET", "/api/brands", { cookie })).json.brands).toHaveLength(1);
  expect((await t.call("GET", "/api/auth/me", { cookie })).status).toBe(200);
});

test("deleting one's account deletes its brands with every row, its keys, sessions and the account; other accounts keep theirs", async () => {
  t = await testApp();
  const ownerCookie = await t.signIn("owner@example.com", { plan: "autopilot" });
  const ownerBrand = (await t.call("POST", "/api/brands", { cookie: ownerCookie, body: { name: "Owner Co" } })).json.brand;
  const cookie = await t.signIn("client@example.com", { plan: "visibility" });
  const accountId = (await findAccountByEmail(t.db, "client@example.com"))!.id;
  const brandIds: string[] = [];
  let key = "";
  for (const [name, word] of [
    ["Client Co", "Client"],
    ["Second Co", "Second"],
  ] as const) {
    const brand = (await t.call("POST", "/api/brands", { cookie, body: { name } })).json.brand;
    brandIds.push(brand.id);
    const ids = await seedRecords(t.db, brand.id, word);
    await writeAnswers(t.db, brand.id, [
      { promptId: ids.promptId, engine: "chatgpt", daysAgo: 1, text: `${name} is fine.`, citations: [] },
    ]);
    key = (await createApiKey(t.db, accountId, { name: `${word} key`, brandId: brand.id })).plaintext;
  }
  expect((await listBrand(key)).status).toBe(200);

  const wrong = await t.call("DELETE", "/api/auth/me", { cookie, body: { password: "not it" } });
  expect(wrong.status).toBe(403);
  const missing = await t.call("DELETE", "/api/auth/me", { cookie, body: {} });
  expect(missing.status).toBe(400);
  expect(missing.json.error).toBe("password: give your current password.");
  expect((await t.call("GET", "/api/brands", { cookie })).json.brands).toHaveLength(2);

  const res = await t.call("DELETE", "/api/auth/me", { cookie, body: { password: PASSWORD } });
  expect(res.status).toBe(200);
  expect(res.json).toEqual({ deleted: { email: "client@example.com", brands: 2 } });
  expect(res.headers.get("set-cookie")).toContain("Max-Age=0");
  expect((await t.call("GET", "/api/auth/me", { cookie })).status).toBe(401);
  expect((await listBrand(key)).status).toBe(401);
  expect((await login("client@example.com", PASSWORD)).status).toBe(401);
  expect(await findAccountByEmail(t.db, "client@example.com")).toBeNull();
  for (const table of brandTables()) {
    const { n } = (await t.db.get<{ n: number }>(
      `SELECT count(*) AS n FROM "${table.name}" WHERE brand_id IN (${brandIds.map(() => "?").join(",")})`,
      brandIds,
    ))!;
    expect({ table: table.name, rows: Number(n) }).toEqual({ table: table.name, rows: 0 });
  }
  for (const table of ["sessions", "api_keys", "brands"]) {
    const { n } = (await t.db.get<{ n: number }>(`SELECT count(*) AS n FROM ${table} WHERE account_id = ?`, [accountId]))!;
    expect({ table, rows: Number(n) }).toEqual({ table, rows: 0 });
  }
  // The owner's account and brand are untouched.
  expect((await t.call("GET", "/api/brands", { cookie: ownerCookie })).json.brands.map((b: { id: string }) => b.id)).toEqual([
    ownerBrand.id,
  ]);
});

test("GET, PUT on /api/auth/password and PUT on /api/auth/me are 405 with Allow", async () => {
  t = await testApp();
  const cookie = await t.signIn("a@example.com");
  const password = await t.call("GET", "/api/auth/password", { cookie });
  expect(password.status).toBe(405);
  expect(password.headers.get("allow")).toBe("POST");
  const me = await t.call("PUT", "/api/auth/me", { cookie, body: {} });
  expect(me.status).toBe(405);
  expect(me.headers.get("allow")).toBe("GET, DELETE");
});

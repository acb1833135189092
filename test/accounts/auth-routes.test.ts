import { afterEach, describe, expect, spyOn, test } from "bun:test";
import { setAccountPlan } from "../../src/accounts/service";
import { sha256Hex } from "../../src/ids";
import { configureLog } from "../../src/log";
import { PASSWORD, sessionCookieOf, type TestApp, testApp } from "../support/http";
import { captureLog } from "../support/log";

let t: TestApp;
afterEach(() => t?.close());

describe("POST /api/auth/signup", () => {
  test("the first account can sign up, is signed in with a lax HttpOnly cookie, and as the owner has every plan's tools", async () => {
    t = await testApp();
    const res = await t.call("POST", "/api/auth/signup", { body: { email: " Owner@Example.COM ", password: PASSWORD } });
    expect(res.status).toBe(201);
    expect(res.json.account).toEqual({ id: expect.stringMatching(/^acc_/), email: "owner@example.com", plan: "autopilot" });
    const cookie = res.headers.get("set-cookie")!;
    expect(cookie).toMatch(/^spyglass_session=[A-Za-z0-9_-]{43}; /);
    expect(cookie).toContain("HttpOnly");
    expect(cookie).toContain("SameSite=Lax");
    expect(cookie).toContain("Path=/");
    expect(cookie).not.toContain("Secure");
    const me = await t.call("GET", "/api/auth/me", { cookie: sessionCookieOf(res.headers) });
    expect(me.status).toBe(200);
    expect(me.json.account.email).toBe("owner@example.com");
  });

  test("after the first account, signup is closed unless the config opens it", async () => {
    t = await testApp();
    expect((await t.call("POST", "/api/auth/signup", { body: { email: "a@example.com", password: PASSWORD } })).status).toBe(201);
    const second = await t.call("POST", "/api/auth/signup", { body: { email: "b@example.com", password: PASSWORD } });
    expect(second.status).toBe(403);
    expect(second.json).toEqual({ error: expect.any(String), code: "signup_closed" });
  });

  test('[auth] signup = "open" lets further accounts sign up', async () => {
    t = await testApp({ signup: "open" });
    expect((await t.call("POST", "/api/auth/signup", { body: { email: "a@example.com", password: PASSWORD } })).status).toBe(201);
    const later = await t.call("POST", "/api/auth/signup", { body: { email: "b@example.com", password: PASSWORD } });
    expect(later.status).toBe(201);
    // Only the owner starts with a plan: the owner gives the others theirs.
    expect(later.json.account.plan).toBe("none");
    const dup = await t.call("POST", "/api/auth/signup", { body: { email: "B@example.com", password: PASSWORD } });
    expect(dup.status).toBe(409);
    expect(dup.json.code).toBe("email_taken");
  });

  test("on a closed instance a signup flood is refused without hashing, and a login during it is answered", async () => {
    t = await testApp();
    await t.signIn("owner@example.com");
    // Counted, not timed (a timed bound failed under CI load): unfixed, each of the 300 signups ran an
    // argon2id hash (19 MiB, about 100 times a login's verify on this machine) before being refused.
    const hashes = spyOn(Bun.password, "hash");
    try {
      const flood = Array.from({ length: 300 }, (_, i) =>
        t.call("POST", "/api/auth/signup", {
          body: { email: `flood${i}@example.com`, password: "p".repeat(1000) },
          headers: { "x-forwarded-for": `203.0.113.${i % 250}` },
        }),
      );
      const during = await t.call("POST", "/api/auth/login", { body: { email: "owner@example.com", password: PASSWORD } });
      expect(during.status).toBe(200);
      const statuses = new Set((await Promise.all(flood)).map((res) => res.status));
      expect(statuses).toEqual(new Set([403]));
      expect(hashes).toHaveBeenCalledTimes(0);
    } finally {
      hashes.mockRestore();
    }
  }, 60_000);

  test("signups are throttled per address: the eleventh within the hour is 429", async () => {
    t = await testApp({ signup: "open" });
    const from = (i: number, ip: string) =>
      t.call("POST", "/api/auth/signup", { body: { email: `u${i}@example.com`, password: "short" }, headers: { "x-forwarded-for": ip } });
    for (let i = 0; i < 10; i++) expect((await from(i, "203.0.113.9")).status).toBe(400);
    const blocked = await from(10, "203.0.113.9");
    expect(blocked.status).toBe(429);
    expect(blocked.json.code).toBe("signup_throttled");
    expect((await from(11, "198.51.100.9")).status).toBe(400);
  });

  test("a bad email or a short password is a 400 naming the field", async () => {
    t = await testApp();
    const email = await t.call("POST", "/api/auth/signup", { body: { email: "not-an-email", password: PASSWORD } });
    expect(email.status).toBe(400);
    expect(email.json).toEqual({ error: expect.stringContaining("email"), code: "invalid_email" });
    const short = await t.call("POST", "/api/auth/signup", { body: { email: "a@example.com", password: "1234567" } });
    expect(short.status).toBe(400);
    expect(short.json).toEqual({ error: expect.stringContaining("8 characters"), code: "invalid_password" });
    // Characters, not UTF-16 units: four emoji are four characters.
    const emoji = await t.call("POST", "/api/auth/signup", { body: { email: "a@example.com", password: "🔑🔑🔑🔑" } });
    expect(emoji.status).toBe(400);
    expect(emoji.json.code).toBe("invalid_password");
    const notObject = await t.call("POST", "/api/auth/signup", { body: ["x"] });
    expect(notObject.status).toBe(400);
  });

  test("an https public URL gives a Secure __Host- cookie", async () => {
    t = await testApp({ publicUrl: "https://visibility.example.com" });
    const res = await t.call("POST", "/api/auth/signup", { body: { email: "a@example.com", password: PASSWORD } });
    const cookie = res.headers.get("set-cookie")!;
    expect(cookie).toMatch(/^__Host-spyglass_session=/);
    expect(cookie).toContain("; Secure");
    const me = await t.call("GET", "/api/auth/me", { cookie: sessionCookieOf(res.headers) });
    expect(me.status).toBe(200);
    const plainName = sessionCookieOf(res.headers).replace("__Host-", "");
    expect((await t.call("GET", "/api/auth/me", { cookie: plainName })).status).toBe(401);
  });

  test("a cross-site signup is 403 and a form-encoded one 415", async () => {
    t = await testApp();
    const cross = await t.call("POST", "/api/auth/signup", {
      body: { email: "a@example.com", password: PASSWORD },
      headers: { "sec-fetch-site": "cross-site" },
    });
    expect(cross.status).toBe(403);
    expect(cross.json).toEqual({ error: "Forbidden", code: "cross_site" });
    const form = await t.call("POST", "/api/auth/signup", {
      rawBody: "email=a%40example.com&password=x",
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });
    expect(form.status).toBe(415);
  });
});

describe("POST /api/auth/login", () => {
  test("correct credentials give 200 {account} and a working session cookie", async () => {
    t = await testApp();
    const cookie = await t.signIn("a@example.com", { plan: "visibility" });
    const me = await t.call("GET", "/api/auth/me", { cookie });
    expect(me.json).toEqual({
      account: { id: expect.any(String), email: "a@example.com", plan: "visibility" },
      owner: true,
      demo_kept: false,
    });
    const res = await t.call("POST", "/api/auth/login", { body: { email: "A@EXAMPLE.com", password: PASSWORD } });
    expect(res.status).toBe(200);
    expect(res.json.account.email).toBe("a@example.com");
  });

  test("the session token is stored only as its SHA-256", async () => {
    t = await testApp();
    const cookie = await t.signIn("a@example.com");
    const token = cookie.split("=")[1]!;
    const rows = await t.db.all<{ tokenHash: string }>(
      `SELECT token_hash AS "tokenHash", account_id, created_at, expires_at FROM sessions`,
    );
    expect(rows.map((r) => r.tokenHash)).toEqual([sha256Hex(token)]);
    expect(JSON.stringify(rows)).not.toContain(token);
  });

  test("a wrong password and an unknown email get the same 401 after the same work", async () => {
    t = await testApp();
    await t.signIn("a@example.com");
    // The same work, not a timed bound (timings failed under CI load): each answer verifies the
    // password once against an argon2id hash of the same parameters (an unknown email against a
    // dummy hash), so both take the same tens of milliseconds.
    const verify = spyOn(Bun.password, "verify");
    const attempt = async (email: string) => {
      verify.mockClear();
      const res = await t.call("POST", "/api/auth/login", { body: { email, password: "wrong password" } });
      // "$argon2id$v=19$m=…,t=…,p=…$salt$hash" → its first four fields, the algorithm and its cost.
      return { res, parameters: verify.mock.calls.map((call) => String(call[1]).split("$").slice(0, 4).join("$")) };
    };
    try {
      const known = await attempt("a@example.com");
      const unknown = await attempt("nobody@example.com");
      expect(known.res.status).toBe(401);
      expect(unknown.res.status).toBe(401);
      expect(known.res.json).toEqual({ error: "Unauthorized", code: "invalid_credentials" });
      expect(unknown.res.json).toEqual(known.res.json);
      expect(unknown.res.headers.get("set-cookie")).toBeNull();
      expect(known.parameters).toEqual(["$argon2id$v=19$m=19456,t=2,p=1"]);
      expect(unknown.parameters).toEqual(known.parameters);
    } finally {
      verify.mockRestore();
    }
  });

  test("five failures for one account from one address throttle that pair with 429 and Retry-After, even with the right password", async () => {
    t = await testApp();
    await t.signIn("a@example.com");
    const logs = await captureLog(async () => {
      for (let i = 0; i < 5; i++) {
        expect((await t!.call("POST", "/api/auth/login", { body: { email: "a@example.com", password: "wrong password" } })).status).toBe(
          401,
        );
      }
    });
    configureLog({ quiet: true });
    // The failure that starts the lock is logged once at warn, for the operator's alerting; never the password.
    const warnings = logs
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line))
      .filter((line) => line.level === "warn");
    expect(warnings).toEqual([
      expect.objectContaining({ msg: "sign-in locked after failed passwords", email: "a@example.com", seconds: expect.any(Number) }),
    ]);
    expect(logs).not.toContain("wrong password");
    const res = await t.call("POST", "/api/auth/login", { body: { email: "a@example.com", password: PASSWORD } });
    expect(res.status).toBe(429);
    expect(res.json.code).toBe("login_throttled");
    expect(Number(res.headers.get("retry-after"))).toBeGreaterThan(0);
    // Another account is unaffected.
    await t.signIn("b@example.com");
  }, 15_000);

  test("thirty failures from one address throttle that address only", async () => {
    t = await testApp();
    const from = (ip: string, email: string, password = "wrong password") =>
      t.call("POST", "/api/auth/login", { body: { email, password }, headers: { "x-forwarded-for": ip } });
    await Promise.all(Array.from({ length: 30 }, (_, i) => from("203.0.113.7", `n${i}@example.com`)));
    const blocked = await from("203.0.113.7", "other@example.com");
    expect(blocked.status).toBe(429);
    expect(blocked.headers.get("retry-after")).toMatch(/^\d+$/);
    expect((await from("198.51.100.1", "other@example.com")).status).toBe(401);
  }, 30_000);

  test("the owner can sign in while an attacker fails for the same account from another address", async () => {
    t = await testApp();
    await t.signIn("owner@example.com");
    const from = (ip: string, password: string) =>
      t.call("POST", "/api/auth/login", { body: { email: "owner@example.com", password }, headers: { "x-forwarded-for": ip } });
    const attacker = [];
    for (let i = 0; i < 12; i++) attacker.push((await from("203.0.113.7", `guess number ${i}`)).status);
    expect(attacker.slice(0, 5)).toEqual([401, 401, 401, 401, 401]);
    expect(new Set(attacker.slice(5))).toEqual(new Set([429]));
    expect((await from("198.51.100.1", PASSWORD)).status).toBe(200);
    // The attacker's address stays locked for that account, even with the right password.
    expect((await from("203.0.113.7", PASSWORD)).status).toBe(429);
  }, 30_000);

  test("an email that is no address, or an over-long password, is 400 before the throttle counts it", async () => {
    t = await testApp();
    await t.signIn("a@example.com");
    for (let i = 0; i < 10; i++) {
      const res = await t.call("POST", "/api/auth/login", { body: { email: `${"x".repeat(10_000)}${i}`, password: "wrong password" } });
      expect(res.status).toBe(400);
      expect(res.json.code).toBe("invalid_email");
    }
    const long = await t.call("POST", "/api/auth/login", { body: { email: "a@example.com", password: "p".repeat(2 * 1024 + 1) } });
    expect(long.status).toBe(400);
    expect((await t.call("POST", "/api/auth/login", { body: { email: "a@example.com", password: PASSWORD } })).status).toBe(200);
  });

  test("a password of 600 emoji (1,200 UTF-16 units, 600 characters) can be set and signed in with", async () => {
    // A review found it could be set but not signed in with: the sign-in's size check counted units.
    t = await testApp();
    const cookie = await t.signIn("a@example.com");
    const emoji = "😀".repeat(600);
    const changed = await t.call("POST", "/api/auth/password", { cookie, body: { current_password: PASSWORD, new_password: emoji } });
    expect(changed.status).toBe(200);
    expect((await t.call("POST", "/api/auth/login", { body: { email: "a@example.com", password: emoji } })).status).toBe(200);
  });

  test("a missing password is 400, not a crash", async () => {
    t = await testApp();
    const res = await t.call("POST", "/api/auth/login", { body: { email: "a@example.com" } });
    expect(res.status).toBe(400);
    expect(res.json.code).toBe("invalid_password");
  });
});

describe("POST /api/auth/logout and GET /api/auth/me", () => {
  test("logout deletes the session server-side and clears the cookie", async () => {
    t = await testApp();
    const cookie = await t.signIn("a@example.com");
    const res = await t.call("POST", "/api/auth/logout", { cookie, body: {} });
    expect(res.status).toBe(204);
    expect(res.headers.get("set-cookie")).toContain("Max-Age=0");
    expect(await t.db.all("SELECT token_hash FROM sessions")).toHaveLength(0);
    expect((await t.call("GET", "/api/auth/me", { cookie })).status).toBe(401);
  });

  test("a cross-site logout is refused", async () => {
    t = await testApp();
    const cookie = await t.signIn("a@example.com");
    const res = await t.call("POST", "/api/auth/logout", { cookie, body: {}, headers: { origin: "https://evil.example" } });
    expect(res.status).toBe(403);
    expect((await t.call("GET", "/api/auth/me", { cookie })).status).toBe(200);
  });

  test("me without a session, with a forged cookie or with a bearer key is 401", async () => {
    t = await testApp();
    await t.signIn("a@example.com");
    for (const headers of <Array<Record<string, string>>>[
      {},
      { cookie: "spyglass_session=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA" },
      { cookie: "spyglass_session=not a token" },
      { authorization: `Bearer svc_live_${"A".repeat(43)}` },
    ]) {
      const res = await t.call("GET", "/api/auth/me", { headers });
      expect(res.status).toBe(401);
      expect(res.json).toEqual({ error: "Unauthorized", code: "unauthorized" });
    }
  });
});

describe("dashboard HTTP conventions", () => {
  test("login, signup and key creation answers (which carry a secret) are Cache-Control: no-store", async () => {
    t = await testApp();
    const signup = await t.call("POST", "/api/auth/signup", { body: { email: "a@example.com", password: PASSWORD } });
    expect(signup.status).toBe(201);
    expect(signup.headers.get("cache-control")).toBe("no-store");
    const login = await t.call("POST", "/api/auth/login", { body: { email: "a@example.com", password: PASSWORD } });
    expect(login.status).toBe(200);
    expect(login.headers.get("cache-control")).toBe("no-store");
    await setAccountPlan(t.db, "a@example.com", "visibility");
    const cookie = sessionCookieOf(login.headers);
    expect((await t.call("POST", "/api/brands", { cookie, body: { name: "Acme" } })).status).toBe(201);
    const key = await t.call("POST", "/api/mcp/keys", { cookie, body: { name: "laptop" } });
    expect(key.status).toBe(201);
    expect(key.headers.get("cache-control")).toBe("no-store");
  });

  test("every answer behind the session (an account's own data) is private, no-store, so no shared cache keeps it", async () => {
    t = await testApp();
    const cookie = await t.signIn("a@example.com", { plan: "visibility" });
    const brand = (await t.call("POST", "/api/brands", { cookie, body: { name: "Acme" } })).json.brand;
    for (const path of ["/api/auth/me", "/api/brands", "/api/mcp/keys", "/api/accounts", `/api/brands/${brand.id}/tools/list_prompts`]) {
      const res = path.includes("/tools/") ? await t.call("POST", path, { cookie, body: {} }) : await t.call("GET", path, { cookie });
      expect(res.status).toBe(200);
      expect(res.headers.get("cache-control")).toBe("private, no-store");
    }
  });

  test("PUT and PATCH on dashboard routes are 405 with Allow, with or without a session", async () => {
    t = await testApp();
    const cookie = await t.signIn("a@example.com");
    const routes: Array<[string, string]> = [
      ["/api/auth/signup", "POST"],
      ["/api/auth/login", "POST"],
      ["/api/auth/logout", "POST"],
      ["/api/auth/me", "GET, DELETE"],
      ["/api/brands", "GET, POST"],
      ["/api/mcp/keys", "GET, POST"],
      ["/api/mcp/keys/key_123", "DELETE"],
    ];
    for (const [path, allow] of routes) {
      for (const method of ["PUT", "PATCH"]) {
        for (const session of [cookie, undefined]) {
          const res = await t.call(method, path, { cookie: session, body: {} });
          expect(`${method} ${path} ${res.status}`).toBe(`${method} ${path} 405`);
          expect(res.headers.get("allow")).toBe(allow);
          expect(res.json.code).toBe("method_not_allowed");
        }
      }
    }
  });

  test("a bodyless logout needs no Content-Type; a cross-site one is still refused", async () => {
    t = await testApp();
    const cookie = await t.signIn("a@example.com");
    const crossSite = await t.call("POST", "/api/auth/logout", { cookie, headers: { "sec-fetch-site": "cross-site" } });
    expect(crossSite.status).toBe(403);
    expect((await t.call("GET", "/api/auth/me", { cookie })).status).toBe(200);
    const form = await t.call("POST", "/api/auth/logout", { cookie, rawBody: "a=1", headers: { "content-type": "text/plain" } });
    expect(form.status).toBe(415);
    const res = await t.call("POST", "/api/auth/logout", { cookie, headers: { "sec-fetch-site": "same-origin" } });
    expect(res.status).toBe(204);
    expect((await t.call("GET", "/api/auth/me", { cookie })).status).toBe(401);
  });
});

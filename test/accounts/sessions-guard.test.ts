import { afterEach, describe, expect, test } from "bun:test";
import { assertSameOriginJson, clientAddress } from "../../src/accounts/guard";
import { authenticate, createAccount, findAccountByEmail, setAccountPassword, setAccountPlan } from "../../src/accounts/service";
import { createSession, resolveSession, SESSION_REFRESH_MS, SESSION_TTL_MS } from "../../src/accounts/sessions";
import { type AppError } from "../../src/errors";
import { PASSWORD, type TestApp, testApp, testConfig } from "../support/http";
import { captureLog } from "../support/log";

let t: TestApp;
afterEach(() => t?.close());

describe("sessions", () => {
  test("expiry slides, but the row is rewritten only when it is more than an hour stale", async () => {
    t = await testApp();
    const account = await createAccount(t.db, { email: "a@example.com", password: PASSWORD });
    const start = 1_700_000_000_000;
    const { token, expiresAt } = await createSession(t.db, account.id, start);
    expect(expiresAt).toBe(start + SESSION_TTL_MS);
    const stored = async () => (await t.db.get<{ expiresAt: number }>(`SELECT expires_at AS "expiresAt" FROM sessions`))!.expiresAt;

    expect((await resolveSession(t.db, token, start + SESSION_REFRESH_MS - 1))?.refreshedUntil).toBeNull();
    expect(await stored()).toBe(start + SESSION_TTL_MS);

    const later = start + SESSION_REFRESH_MS + 1;
    expect((await resolveSession(t.db, token, later))?.refreshedUntil).toBe(later + SESSION_TTL_MS);
    expect(await stored()).toBe(later + SESSION_TTL_MS);
  });

  test("a sign-in whose password check overlapped a password change makes no session (the change signed every session out)", async () => {
    t = await testApp();
    await createAccount(t.db, { email: "a@example.com", password: PASSWORD });
    // The old password checked (argon2: tens of milliseconds, queued behind others under load)…
    const verified = (await authenticate(t.db, "a@example.com", PASSWORD))!;
    expect(verified.account.email).toBe("a@example.com");
    // …while the password is changed (the CLI, or the account's page), which ends every session…
    await setAccountPassword(t.db, "a@example.com", "a brand new password");
    // …then the sign-in's session: refused, as the old password now is.
    const refused = await createSession(t.db, verified.account.id, Date.now(), verified.passwordHash).catch((error: AppError) => error);
    expect(refused).toMatchObject({ status: 401, code: "invalid_credentials" });
    expect((await t.db.get<{ n: number }>("SELECT count(*) AS n FROM sessions"))!.n).toBe(0);
    // With the new password, a session is made as before.
    const fresh = (await authenticate(t.db, "a@example.com", "a brand new password"))!;
    expect((await createSession(t.db, fresh.account.id, Date.now(), fresh.passwordHash)).token).toMatch(/^[A-Za-z0-9_-]{43}$/);
  });

  test("an expired session is refused and deleted", async () => {
    t = await testApp();
    const account = await createAccount(t.db, { email: "a@example.com", password: PASSWORD });
    const { token, expiresAt } = await createSession(t.db, account.id, 1_000);
    expect(await resolveSession(t.db, token, expiresAt)).toBeNull();
    expect(await t.db.all("SELECT token_hash FROM sessions")).toHaveLength(0);
  });

  test("a sign-in deletes every account's expired sessions, not only its own; live ones stay", async () => {
    t = await testApp();
    const gone = await createAccount(t.db, { email: "gone@example.com", password: PASSWORD });
    const live = await createAccount(t.db, { email: "live@example.com", password: PASSWORD });
    const other = await createAccount(t.db, { email: "other@example.com", password: PASSWORD });
    await createSession(t.db, gone.id, 1_000);
    const kept = await createSession(t.db, live.id, 1_000 + SESSION_TTL_MS);
    await createSession(t.db, other.id, 2_000 + SESSION_TTL_MS);
    const rows = await t.db.all<{ account_id: string }>("SELECT account_id FROM sessions ORDER BY account_id");
    expect(rows.map((r) => r.account_id).sort()).toEqual([live.id, other.id].sort());
    expect(await resolveSession(t.db, kept.token, 2_000 + SESSION_TTL_MS)).not.toBeNull();
  });
});

describe("accounts service", () => {
  test("passwords are hashed with argon2id and emails stored lowercased", async () => {
    t = await testApp();
    await createAccount(t.db, { email: "Mixed@Example.com", password: PASSWORD, plan: "autopilot" });
    const row = (await findAccountByEmail(t.db, "MIXED@example.com"))!;
    expect(row.email).toBe("mixed@example.com");
    expect(row.plan).toBe("autopilot");
    expect(row.passwordHash).toStartWith("$argon2id$");
    expect(await Bun.password.verify(PASSWORD, row.passwordHash)).toBe(true);
  });

  test("setAccountPlan changes the plan and rejects unknown plans and emails", async () => {
    t = await testApp();
    await createAccount(t.db, { email: "a@example.com", password: PASSWORD });
    expect((await setAccountPlan(t.db, "a@example.com", "visibility")).plan).toBe("visibility");
    await expect(setAccountPlan(t.db, "a@example.com", "gold")).rejects.toThrow("plan: must be one of none, visibility, autopilot.");
    await expect(setAccountPlan(t.db, "b@example.com", "none")).rejects.toThrow("No account has the email b@example.com.");
  });
});

describe("same-origin and JSON guard", () => {
  const config = testConfig("/tmp/spyglass-guard");
  const https = testConfig("/tmp/spyglass-guard", { publicUrl: "https://vis.example.com" });
  const status = (cfg: typeof config, method: string, headers: Record<string, string>, body?: string): number => {
    try {
      assertSameOriginJson(cfg, new Request("http://127.0.0.1:3000/api/brands", { method, headers, body }));
      return 200;
    } catch (error) {
      return (error as AppError).status;
    }
  };
  const json = { "content-type": "application/json" };

  test("Sec-Fetch-Site same-origin or none passes; same-site and cross-site are 403", () => {
    expect(status(config, "POST", { ...json, "sec-fetch-site": "same-origin" }, "{}")).toBe(200);
    expect(status(config, "POST", { ...json, "sec-fetch-site": "none" }, "{}")).toBe(200);
    expect(status(config, "POST", { ...json, "sec-fetch-site": "same-site" }, "{}")).toBe(403);
    expect(status(config, "POST", { ...json, "sec-fetch-site": "cross-site" }, "{}")).toBe(403);
  });

  test("without Sec-Fetch-Site, Origin must be our own origin", () => {
    expect(status(config, "POST", { ...json, origin: "http://127.0.0.1:3000" }, "{}")).toBe(200);
    expect(status(config, "POST", { ...json, origin: "http://evil.example" }, "{}")).toBe(403);
    expect(status(config, "POST", { ...json, origin: "null" }, "{}")).toBe(403);
    expect(status(https, "POST", { ...json, origin: "https://vis.example.com" }, "{}")).toBe(200);
    expect(status(https, "POST", { ...json, origin: "http://127.0.0.1:3000" }, "{}")).toBe(403);
  });

  test("without public_url, a state change must be addressed to an address or a local name (DNS rebinding)", () => {
    const to = (host: string) => {
      try {
        assertSameOriginJson(
          config,
          new Request(`http://${host}/api/auth/signup`, { method: "POST", headers: { ...json, origin: `http://${host}` }, body: "{}" }),
        );
        return 200;
      } catch (error) {
        return (error as AppError).status;
      }
    };
    for (const host of [
      "127.0.0.1:3000",
      "localhost:3000",
      "[::1]:3000",
      "192.168.1.20",
      "nas",
      "nas.local",
      "nas.localdomain",
      "nas.home",
      "spyglass.default.svc",
      "spyglass.internal",
      "box.lan",
      "x.home.arpa",
      "app.localhost",
      "spyglass.test",
    ]) {
      expect(`${host} ${to(host)}`).toBe(`${host} 200`);
    }
    // A stranger's name resolved to this machine: its page is same-origin with itself, and refused.
    for (const host of ["rebind.attacker.example:3000", "127.0.0.1.nip.io", "spyglass.example.com"]) {
      expect(`${host} ${to(host)}`).toBe(`${host} 403`);
    }
    let sentence = "";
    try {
      assertSameOriginJson(
        config,
        new Request("http://vis.example.com/api/auth/login", {
          method: "POST",
          headers: { ...json, "sec-fetch-site": "same-origin" },
          body: "{}",
        }),
      );
    } catch (error) {
      sentence = (error as AppError).message;
    }
    expect(sentence).toContain('set public_url = "https://vis.example.com"');
    // With public_url, its own origin is the rule, whatever the name.
    const behindProxy = new Request("https://vis.example.com/api/auth/login", {
      method: "POST",
      headers: { ...json, origin: "https://vis.example.com" },
      body: "{}",
    });
    expect(() => assertSameOriginJson(https, behindProxy)).not.toThrow();
    // Reads are untouched, and so is a request that no browser sent (neither Origin nor Sec-Fetch-Site: curl).
    expect(status(config, "GET", {})).toBe(200);
    expect(() =>
      assertSameOriginJson(config, new Request("http://vis.example.com/api/auth/login", { method: "POST", headers: json, body: "{}" })),
    ).not.toThrow();
  });

  test("a change refused for its Origin is logged with the origin it came from and the one expected", async () => {
    const logged = await captureLog(async () => {
      expect(status(https, "POST", { ...json, origin: "http://192.0.2.2:3000" }, "{}")).toBe(403);
    });
    const line = JSON.parse(logged.trim().split("\n").at(-1)!);
    expect(line).toMatchObject({
      level: "warn",
      origin: "http://192.0.2.2:3000",
      expected: "https://vis.example.com",
      path: "/api/brands",
    });
  });

  test("a request with neither header (curl) is allowed", () => {
    expect(status(config, "PATCH", json, "{}")).toBe(200);
  });

  test("state changes need application/json; a DELETE without a body does not; reads are untouched", () => {
    expect(status(config, "POST", { "content-type": "text/plain" }, "{}")).toBe(415);
    expect(status(config, "PUT", {}, "{}")).toBe(415);
    expect(status(config, "POST", { "content-type": "application/json; charset=utf-8" }, "{}")).toBe(200);
    expect(status(config, "DELETE", {})).toBe(200);
    expect(status(config, "DELETE", { "content-type": "text/plain" }, "x")).toBe(415);
    expect(status(config, "GET", { origin: "http://evil.example" })).toBe(200);
  });

  test("the client address is the peer, or the forwarded one behind a loopback proxy", () => {
    const request = (xff?: string) => new Request("http://x/", { headers: xff ? { "x-forwarded-for": xff } : {} });
    const server = (address: string) => ({ requestIP: () => ({ address, family: "IPv4", port: 1 }) }) as never;
    expect(clientAddress(request("1.1.1.1"), server("203.0.113.9"))).toBe("203.0.113.9");
    expect(clientAddress(request("6.6.6.6, 1.1.1.1"), server("127.0.0.1"))).toBe("1.1.1.1");
    expect(clientAddress(request(), server("::1"))).toBe("::1");
    expect(clientAddress(request(), null)).toBe("unknown");
  });
});

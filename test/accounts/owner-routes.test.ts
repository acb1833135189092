// The instance's first-run state and the owner's account management, in process.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createAccount, findAccountByEmail } from "../../src/accounts/service";
import { demoCommand } from "../../src/demo/cli";
import { seedDemo } from "../../src/demo/seeder";
import { PASSWORD, type TestApp, testApp } from "../support/http";

let t: TestApp;
let owner: string;
let member: string;

beforeAll(async () => {
  t = await testApp();
});
afterAll(() => t.close());

describe("first run", () => {
  test("status says the instance needs its owner until the first account exists", async () => {
    const before = await t.call("GET", "/api/auth/status");
    expect(before.status).toBe(200);
    expect(before.json).toEqual({ setup: true, signup: "first", public_url: null });
    owner = await t.signIn("owner@example.com");
    expect((await t.call("GET", "/api/auth/status")).json.setup).toBe(false);
  });

  test("me says whether the account is the instance's owner", async () => {
    member = await t.signIn("member@example.com");
    expect((await t.call("GET", "/api/auth/me", { cookie: owner })).json).toMatchObject({
      account: { email: "owner@example.com" },
      owner: true,
    });
    expect((await t.call("GET", "/api/auth/me", { cookie: member })).json).toMatchObject({
      account: { email: "member@example.com" },
      owner: false,
    });
  });
});

describe("the owner manages accounts", () => {
  test("lists every account, oldest first, marking the owner", async () => {
    const res = await t.call("GET", "/api/accounts", { cookie: owner });
    expect(res.status).toBe(200);
    expect(res.json.accounts.map((a: { email: string; owner: boolean; plan: string }) => [a.email, a.owner, a.plan])).toEqual([
      ["owner@example.com", true, "none"],
      ["member@example.com", false, "none"],
    ]);
  });

  test("creates an account with a plan, and it can sign in", async () => {
    const res = await t.call("POST", "/api/accounts", {
      cookie: owner,
      body: { email: "New@Example.com", password: PASSWORD, plan: "visibility" },
    });
    expect(res.status).toBe(201);
    expect(res.json.account).toMatchObject({ email: "new@example.com", plan: "visibility" });
    const login = await t.call("POST", "/api/auth/login", { body: { email: "new@example.com", password: PASSWORD } });
    expect(login.status).toBe(200);
    const dup = await t.call("POST", "/api/accounts", { cookie: owner, body: { email: "new@example.com", password: PASSWORD } });
    expect(dup.status).toBe(409);
    expect(dup.json.code).toBe("email_taken");
  });

  test("sets any account's plan, its own included", async () => {
    const accounts = (await t.call("GET", "/api/accounts", { cookie: owner })).json.accounts as Array<{ id: string; email: string }>;
    const memberId = accounts.find((a) => a.email === "member@example.com")!.id;
    const res = await t.call("POST", `/api/accounts/${memberId}/plan`, { cookie: owner, body: { plan: "autopilot" } });
    expect(res.status).toBe(200);
    expect(res.json.account).toMatchObject({ id: memberId, plan: "autopilot" });
    expect((await t.call("GET", "/api/auth/me", { cookie: member })).json.account.plan).toBe("autopilot");
    const ownerId = accounts[0]!.id;
    expect((await t.call("POST", `/api/accounts/${ownerId}/plan`, { cookie: owner, body: { plan: "visibility" } })).json.account.plan).toBe(
      "visibility",
    );
  });

  test("a bad plan or an unknown account is a clear error, and nothing changes", async () => {
    const accounts = (await t.call("GET", "/api/accounts", { cookie: owner })).json.accounts as Array<{ id: string; plan: string }>;
    const bad = await t.call("POST", `/api/accounts/${accounts[1]!.id}/plan`, { cookie: owner, body: { plan: "gold" } });
    expect(bad.status).toBe(400);
    expect(bad.json).toEqual({ error: "plan: must be one of none, visibility, autopilot.", code: "invalid_plan" });
    const unknown = await t.call("POST", "/api/accounts/acc_nobody/plan", { cookie: owner, body: { plan: "none" } });
    expect(unknown.status).toBe(404);
    expect((await t.call("GET", "/api/accounts", { cookie: owner })).json.accounts[1].plan).toBe(accounts[1]!.plan);
  });

  test("another account may not, and no session is 401", async () => {
    for (const [method, path, body] of [
      ["GET", "/api/accounts", undefined],
      ["POST", "/api/accounts", { email: "x@example.com", password: PASSWORD }],
      ["POST", "/api/accounts/acc_x/plan", { plan: "autopilot" }],
    ] as const) {
      const refused = await t.call(method, path, { cookie: member, body });
      expect(refused.status).toBe(403);
      expect(refused.json).toEqual({ error: "Only the instance's owner can manage accounts.", code: "owner_only" });
      expect((await t.call(method, path, { body })).status).toBe(401);
    }
    expect((await t.call("POST", "/api/auth/login", { body: { email: "x@example.com", password: PASSWORD } })).status).toBe(401);
  });

  test("a cross-site request is refused", async () => {
    const res = await t.call("POST", "/api/accounts", {
      cookie: owner,
      body: { email: "cross@example.com", password: PASSWORD },
      headers: { "sec-fetch-site": "cross-site" },
    });
    expect(res.status).toBe(403);
  });
});

describe("an instance whose first account is the demo's", () => {
  test("the demo's account is not the owner, but it is an account: signup is closed (CONTRACT §3), and the next account, made with the CLI, owns the instance", async () => {
    const fresh = await testApp();
    try {
      const demo = await seedDemo(fresh.ctx, { scale: 1 });
      const demoLogin = await fresh.call("POST", "/api/auth/login", { body: demo.login });
      expect(demoLogin.status).toBe(200);
      const demoCookie = demoLogin.headers.get("set-cookie")!.split(";")[0]!;
      expect((await fresh.call("GET", "/api/auth/me", { cookie: demoCookie })).json.owner).toBe(false);
      expect((await fresh.call("GET", "/api/accounts", { cookie: demoCookie })).status).toBe(403);
      // An instance that had only the demo's account (for weeks, perhaps) is not open to a stranger's signup.
      expect((await fresh.call("GET", "/api/auth/status")).json.setup).toBe(false);
      const stranger = await fresh.call("POST", "/api/auth/signup", { body: { email: "stranger@example.com", password: PASSWORD } });
      expect(stranger.status).toBe(403);
      expect(stranger.json.code).toBe("signup_closed");
      expect(await findAccountByEmail(fresh.ctx.db, "stranger@example.com")).toBeNull();

      // The CLI's account (as `spyglass demo` says) is the owner.
      await createAccount(fresh.ctx.db, { email: "me@example.com", password: PASSWORD, plan: "autopilot" });
      const login = await fresh.call("POST", "/api/auth/login", { body: { email: "me@example.com", password: PASSWORD } });
      const cookie = login.headers.get("set-cookie")!.split(";")[0]!;
      expect((await fresh.call("GET", "/api/auth/me", { cookie })).json.owner).toBe(true);
      const listed = await fresh.call("GET", "/api/accounts", { cookie });
      expect(listed.json.accounts.map((a: { email: string; owner: boolean }) => [a.email, a.owner])).toEqual([
        [demo.login.email, false],
        ["me@example.com", true],
      ]);
    } finally {
      await fresh.close();
    }
  });

  test('with signup = "open", the first account after the demo\'s signs up as the owner, on Autopilot; the next on none', async () => {
    const fresh = await testApp({ signup: "open" });
    try {
      // The demo says so: with open signup the next visitor, not the demo, would own the instance.
      const printed: string[] = [];
      await demoCommand(fresh.ctx, { scale: 1, reset: false, json: false, out: { stdout: { write: (t: string) => printed.push(t) } } });
      expect(printed.join("")).toContain("signup is open, so the next visitor to sign up would own it instead");
      const first = await fresh.call("POST", "/api/auth/signup", { body: { email: "me@example.com", password: PASSWORD } });
      expect(first.status).toBe(201);
      expect(first.json.account.plan).toBe("autopilot");
      const cookie = first.headers.get("set-cookie")!.split(";")[0]!;
      expect((await fresh.call("GET", "/api/auth/me", { cookie })).json.owner).toBe(true);
      const second = await fresh.call("POST", "/api/auth/signup", { body: { email: "other@example.com", password: PASSWORD } });
      expect(second.json.account.plan).toBe("none");
    } finally {
      await fresh.close();
    }
  });
});

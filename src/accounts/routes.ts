// /api/auth: signup, login, logout, me (CONTRACT §3); a person's own password change and account deletion.
import { Elysia } from "elysia";
import { type AppContext } from "../context";
import { Forbidden, Invalid, methodNotAllowed, TooManyRequests, Unauthorized } from "../errors";
import { sha256Hex } from "../ids";
import { log } from "../log";
import {
  assertSameOriginJson,
  clearedSessionCookie,
  clientAddress,
  proxyMatcher,
  readSessionToken,
  sessionCookie,
  sessionGuard,
} from "./guard";
import { isOwner } from "./owner";
import {
  type AccountView,
  authenticate,
  changeOwnPassword,
  checkPasswordSize,
  isAccountPassword,
  isKeptDemoAccount,
  normalizeEmail,
  signup,
} from "./service";
import { createSession, deleteSession } from "./sessions";
import { FailureWindow, loginThrottle, throttleAddress } from "./throttle";

// Signups per client address (each attempt counts): enough for a team's first morning, not for a
// flood that would make the server hash passwords all day.
const SIGNUP_RULE = { maxFailures: 10, windowMs: 60 * 60 * 1000 };
// Wrong passwords confirming a change to one's own account (a new password, deletion), per session:
// a session someone else got hold of does not let them guess the password at leisure, nor lock the
// account's own person out of changing it (a new session needs the password anyway).
const CONFIRM_RULE = { maxFailures: 5, windowMs: 15 * 60 * 1000 };

/** How an account and its brands are deleted: brands' deletion (app.ts hands it in; brands depend on accounts). */
export type DeleteAccount = (accountId: string) => Promise<{ brands: number }>;

interface Credentials {
  email?: unknown;
  password?: unknown;
}

function credentials(body: unknown): Credentials {
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    throw new Invalid("Send a JSON object with email and password.", "invalid_input");
  }
  return body as Credentials;
}

export function accountRoutes(ctx: AppContext, deleteAccount: DeleteAccount) {
  const throttle = loginThrottle();
  const signups = new FailureWindow(SIGNUP_RULE);
  const confirmations = new FailureWindow(CONFIRM_RULE);
  /** The request's password is the account's own; Forbidden (wrong) or TooManyRequests otherwise. */
  const confirmPassword = async (accountId: string, request: Request, body: unknown, field: string): Promise<void> => {
    const key = `${accountId}:${sha256Hex(readSessionToken(config, request) ?? "")}`;
    const wait = confirmations.retryAfter(key);
    if (wait > 0) throw new TooManyRequests(`Too many wrong passwords; try again in ${wait} seconds.`, wait, "password_throttled");
    const offered = typeof body === "object" && body !== null ? (body as Record<string, unknown>)[field] : undefined;
    if (typeof offered !== "string" || offered === "") throw new Invalid(`${field}: give your current password.`, "invalid_password");
    if (!(await isAccountPassword(db, accountId, offered, field))) {
      confirmations.fail(key);
      throw new Forbidden(`${field}: that is not your current password.`, "wrong_password");
    }
  };
  const { config, db } = ctx;

  const startSession = async (account: AccountView, set: { headers: Record<string, unknown> }, verifiedHash?: string) => {
    const session = await createSession(db, account.id, Date.now(), verifiedHash);
    set.headers["set-cookie"] = sessionCookie(config, session.token, session.expiresAt);
    // The answer carries a session credential: no cache may keep it.
    set.headers["cache-control"] = "no-store";
    return { account };
  };

  const proxies = proxyMatcher(config.trustedProxies);
  const open = new Elysia({ prefix: "/api/auth" })
    .all("/signup", methodNotAllowed("POST"))
    .all("/login", methodNotAllowed("POST"))
    .all("/logout", methodNotAllowed("POST"))
    .onBeforeHandle({ as: "local" }, ({ request }) => {
      assertSameOriginJson(config, request);
    })
    .post("/signup", async ({ body, set, request, server }) => {
      const input = credentials(body);
      const address = throttleAddress(clientAddress(request, server, proxies));
      const wait = signups.retryAfter(address);
      if (wait > 0)
        throw new TooManyRequests(`Too many signups from this address; try again in ${wait} seconds.`, wait, "signup_throttled");
      signups.fail(address);
      const account = await signup(db, config, { email: input.email, password: input.password });
      set.status = 201;
      return startSession(account, set);
    })
    .post("/login", async ({ body, set, request, server }) => {
      const input = credentials(body);
      // Sizes and shapes are checked before anything is remembered: the throttle keeps only a
      // valid (bounded) email, whatever was sent.
      const email = normalizeEmail(input.email);
      const password = checkPasswordSize(input.password);
      const { wait, attempt } = throttle.begin(email, clientAddress(request, server, proxies));
      if (wait > 0) {
        throw new TooManyRequests(`Too many failed sign-in attempts; try again in ${wait} seconds.`, wait, "login_throttled");
      }
      const verified = await authenticate(db, email, password);
      if (!verified) {
        // The failure that starts a lock is the operator's to know (fail2ban, alerting): once, at warn.
        const locked = throttle.waitAfter(attempt);
        if (locked > 0) log.warn("sign-in locked after failed passwords", { email, address: attempt.address, seconds: locked });
        throw new Unauthorized("Unauthorized", "invalid_credentials");
      }
      throttle.succeeded(attempt);
      return startSession(verified.account, set, verified.passwordHash);
    })
    .post("/logout", async ({ request, set }) => {
      await deleteSession(db, readSessionToken(config, request));
      set.headers["set-cookie"] = clearedSessionCookie(config);
      set.status = 204;
      return null;
    });

  const authed = new Elysia({ prefix: "/api/auth" })
    .all("/me", methodNotAllowed("GET, DELETE"))
    .all("/password", methodNotAllowed("POST"))
    .use(sessionGuard(ctx))
    // demo_kept: the demo's account before an owner exists, which cannot be deleted yet (the page says so up front).
    .get("/me", async ({ account }) => ({
      account,
      owner: await isOwner(db, account.id),
      demo_kept: await isKeptDemoAccount(db, account.id),
    }))
    .post("/password", async ({ account, body, request }) => {
      await confirmPassword(account.id, request, body, "current_password");
      const next = (body as Record<string, unknown>).new_password;
      // The same one changes nothing a person meant to change (the dashboard walk saw it accepted).
      if (next === (body as Record<string, unknown>).current_password) {
        throw new Invalid("new_password: this is your current password; choose a new one.", "same_password");
      }
      const ended = await changeOwnPassword(db, account.id, next, sha256Hex(readSessionToken(config, request) ?? ""));
      return { changed: true, other_sessions_ended: ended };
    })
    .delete("/me", async ({ account, body, set, request }) => {
      await confirmPassword(account.id, request, body, "password");
      const { brands } = await deleteAccount(account.id);
      set.headers["set-cookie"] = clearedSessionCookie(config);
      return { deleted: { email: account.email, brands } };
    });

  return new Elysia().use(open).use(authed);
}

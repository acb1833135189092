// The dashboard's only way to the server: the auth, brand, key and account routes, and the session
// door onto the catalogue (typed from the catalogue's declarations). Errors carry the server's sentence.
import { type ToolInput, type ToolName, type ToolOutput } from "../../catalogue/types";

export type Plan = "none" | "visibility" | "autopilot";

export interface Account {
  id: string;
  email: string;
  plan: Plan;
}

export interface Me {
  account: Account;
  owner: boolean;
  /** The demo's account before the owner's exists: it cannot be deleted yet. */
  demo_kept: boolean;
}

export interface Brand {
  id: string;
  name: string;
  domain: string | null;
  aliases: string[];
  site_key: string;
}

export interface ApiKey {
  id: string;
  name: string;
  key_prefix: string;
  created_at: string;
  last_used_at: string | null;
  brand_id: string;
}

/** An AI client connected by OAuth to one brand ("Connected apps"). */
export interface Grant {
  id: string;
  client_id: string;
  client_name: string;
  brand_id: string;
  created_at: string;
  last_used_at: string | null;
}

/** An authorization request as the consent page shows it; or, when it is refused, where the client is told. */
export type AuthorizationRequest =
  | { client: { id: string; name: string; uri: string | null; kind: "dcr" | "cimd"; verified: false }; redirect_uri: string }
  /** return_now: the redirect leads to an app on this device, which is sent there at once. */
  | { error_redirect: string; error: string; return_now: boolean };

export interface InstanceStatus {
  /** No account yet: the first visitor creates the owner. */
  setup: boolean;
  signup: "first" | "open" | "closed";
  public_url: string | null;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly code: string,
    readonly requiredPlan: Plan | null,
  ) {
    super(message);
  }
}

async function request<T>(method: string, path: string, body?: unknown): Promise<T> {
  const response = await fetch(path, {
    method,
    credentials: "same-origin",
    headers: body === undefined ? {} : { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (response.status === 204) return undefined as T;
  const data = (await response.json().catch(() => null)) as { error?: string; code?: string; required_plan?: Plan } | null;
  if (!response.ok) {
    const message = data?.error ?? `The server answered ${response.status}.`;
    throw new ApiError(response.status, message, data?.code ?? "error", data?.required_plan ?? null);
  }
  return data as T;
}

export const api = {
  status: () => request<InstanceStatus>("GET", "/api/auth/status"),
  me: () => request<Me>("GET", "/api/auth/me"),
  login: (email: string, password: string) => request<{ account: Account }>("POST", "/api/auth/login", { email, password }),
  signup: (email: string, password: string) => request<{ account: Account }>("POST", "/api/auth/signup", { email, password }),
  logout: () => request<void>("POST", "/api/auth/logout", {}),
  changePassword: (currentPassword: string, newPassword: string) =>
    request<{ changed: true; other_sessions_ended: number }>("POST", "/api/auth/password", {
      current_password: currentPassword,
      new_password: newPassword,
    }),
  deleteAccount: (password: string) => request<{ deleted: { email: string; brands: number } }>("DELETE", "/api/auth/me", { password }),

  brands: () => request<{ brands: Brand[] }>("GET", "/api/brands"),
  createBrand: (input: { name: string; domain?: string; aliases?: string[] }) => request<{ brand: Brand }>("POST", "/api/brands", input),
  deleteArticle: (brandId: string, articleId: string) =>
    request<{ deleted: { id: string; title: string; slug: string; was_published: boolean } }>(
      "DELETE",
      `/api/brands/${encodeURIComponent(brandId)}/articles/${encodeURIComponent(articleId)}`,
    ),
  deleteBrand: (id: string) => request<{ deleted: { id: string; name: string } }>("DELETE", `/api/brands/${encodeURIComponent(id)}`),

  keys: () => request<{ keys: ApiKey[] }>("GET", "/api/mcp/keys"),
  createKey: (name: string, brandId: string) =>
    request<{ key: ApiKey; plaintext: string }>("POST", "/api/mcp/keys", { name, brand_id: brandId }),
  revokeKey: (id: string) => request<void>("DELETE", `/api/mcp/keys/${encodeURIComponent(id)}`),

  grants: () => request<{ enabled: boolean; grants: Grant[] }>("GET", "/api/oauth/grants"),
  revokeGrant: (id: string) => request<void>("DELETE", `/api/oauth/grants/${encodeURIComponent(id)}`),
  authorization: (query: string) => request<AuthorizationRequest>("GET", `/api/oauth/authorization?${query}`),
  decide: (query: string, decision: "approve" | "deny", brandId: string | null) =>
    request<{ redirect: string }>("POST", "/api/oauth/authorization", { request: query, decision, brand_id: brandId }),

  accounts: () => request<{ accounts: Array<Account & { created_at: string; owner: boolean }> }>("GET", "/api/accounts"),
  createAccount: (input: { email: string; password: string; plan: Plan }) => request<{ account: Account }>("POST", "/api/accounts", input),
  setPlan: (accountId: string, plan: Plan) =>
    request<{ account: Account }>("POST", `/api/accounts/${encodeURIComponent(accountId)}/plan`, { plan }),

  /** Runs a catalogue tool for a brand the session's account owns. */
  tool: <N extends ToolName>(brandId: string, name: N, input: ToolInput<N>) =>
    request<ToolOutput<N>>("POST", `/api/brands/${encodeURIComponent(brandId)}/tools/${name}`, input),
};

/** The shortest password the server takes (accounts/service.ts's MIN_PASSWORD, which the forms say). */
export const MIN_PASSWORD = 8;

/** Whether a call failed because the session ended (signed out in another tab, or expired). */
export function isSignedOut(error: unknown): boolean {
  return error instanceof ApiError && error.status === 401 && error.code === "unauthorized";
}

/** The sentence to show for a failed call. */
export function errorMessage(error: unknown): string {
  // The server's "Forbidden" for a change from another origin (CONTRACT §3): seen from the dashboard
  // itself, it means the page is open at another address than the server's public_url.
  if (error instanceof ApiError && error.code === "cross_site") {
    return `The server refused this as a request from another site: this page is open at ${location.origin}, which is not the address the server takes changes from (its public_url in spyglass.toml, or, without one, the address a proxy passes on). Open the dashboard at that address, or correct public_url (or the proxy's Host header) and restart the server.`;
  }
  // The session ended (signed out in another tab, or expired) while this page was open: what was
  // typed is still here, and signing in again elsewhere lets it be sent.
  if (isSignedOut(error)) {
    return "You are signed out (the session ended), so nothing was sent. What you typed is still on this page: sign in again in another tab, then try again here.";
  }
  // A next page of a list whose period moved on since it was read (a page left open past midnight,
  // UTC, with the default period): the tools' sentence speaks to an AI client.
  if (error instanceof ApiError && error.code === "invalid_cursor") {
    return "This list has changed since its first page was read (its period ends today, and a new day has begun): reload the page to read it from the top.";
  }
  // The analytics' refusal names the API's fields (start_date, end_date); the dashboard's are From and To.
  if (error instanceof ApiError && error.code === "invalid_date_range") {
    return error.message
      .replace(
        "start_date must be on or before end_date.",
        "The period's From date is after its To date: choose a From date on or before the To date.",
      )
      .replace(
        /^start_date must be on or before end_date \(end_date, not given, is today: [\d-]+\)\.$/,
        "The period's From date is after today, where it ends without a To date: choose a From date up to today.",
      )
      .replace("narrow start_date and end_date.", "move From or To.");
  }
  // The brand's id after its name serves an AI client or the CLI; a person on the dashboard has the name.
  if (error instanceof ApiError && error.code === "brand_exists")
    return error.message.replace(/ \(brd_[0-9a-z]{16}\)(?=; give this brand another name\.$)/i, "");
  // The brand's names or site clashing with a competitor's: without the competitor's id, and the
  // page to change it on rather than the tool's name.
  if (error instanceof ApiError && error.code === "brand_is_competitor")
    return error.message.replace(/ \(cmp_[0-9a-z]{16}\)/i, "").replace("(update_competitor)", "(on the Competitors page)");
  if (error instanceof ApiError) return error.message;
  return "The server could not be reached; check your connection and try again.";
}

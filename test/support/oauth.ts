// OAuth helpers for tests: PKCE pairs, a DCR registration, the consent decision through the
// dashboard's session route, a token request, and an https server on loopback with a self-signed
// certificate (for client metadata documents, which must be https).
//
//   const pair = pkce();
//   const client = await registerClient(t, ["http://127.0.0.1:9/cb"]);
//   const redirect = await consent(t, cookie, authorizeQuery(client, pair), brandId);   // the client redirect
//   const tokens = await tokenRequest(t, { grant_type: "authorization_code", ... });
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type CallResult, type TestApp } from "./http";

export const RESOURCE = "https://spyglass.test/api/mcp/mcp";

export interface Pkce {
  verifier: string;
  challenge: string;
}

export function pkce(): Pkce {
  const verifier = Buffer.from(crypto.getRandomValues(new Uint8Array(48))).toString("base64url");
  return { verifier, challenge: new Bun.CryptoHasher("sha256").update(verifier).digest("base64url") };
}

export async function registerClient(
  t: TestApp,
  redirectUris: string[],
  name = "Test Client",
): Promise<{ id: string; redirectUri: string }> {
  const res = await t.call("POST", "/oauth/register", { body: { client_name: name, redirect_uris: redirectUris } });
  if (res.status !== 201) throw new Error(`registration failed: ${res.status} ${res.text}`);
  return { id: res.json.client_id, redirectUri: redirectUris[0]! };
}

export function authorizeQuery(client: { id: string; redirectUri: string }, pair: Pkce, extra: Record<string, string> = {}): string {
  return new URLSearchParams({
    response_type: "code",
    client_id: client.id,
    redirect_uri: client.redirectUri,
    code_challenge: pair.challenge,
    code_challenge_method: "S256",
    state: "st-123",
    resource: RESOURCE,
    ...extra,
  }).toString();
}

/** Approves (or denies) through the consent page's route; returns the URL the browser is sent to. */
export async function consent(t: TestApp, cookie: string, query: string, brandId: string, decision = "approve"): Promise<URL> {
  const res = await t.call("POST", "/api/oauth/authorization", { cookie, body: { request: query, decision, brand_id: brandId } });
  if (res.status !== 200) throw new Error(`consent failed: ${res.status} ${res.text}`);
  // The redirect carries the code: a secret, never cached (CONTRACT §7).
  if (res.headers.get("cache-control") !== "no-store")
    throw new Error(`consent's answer is cacheable: ${res.headers.get("cache-control")}`);
  return new URL(res.json.redirect);
}

export function tokenRequest(t: TestApp, params: Record<string, string>): Promise<CallResult> {
  return t.call("POST", "/oauth/token", {
    rawBody: new URLSearchParams(params).toString(),
    headers: { "content-type": "application/x-www-form-urlencoded" },
  });
}

/** A self-signed certificate for 127.0.0.1, made with openssl. */
export function selfSignedCertificate(): { cert: string; key: string } {
  const dir = mkdtempSync(join(tmpdir(), "spyglass-cert-"));
  try {
    execFileSync(
      "openssl",
      [
        "req",
        "-x509",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-days",
        "1",
        "-subj",
        "/CN=127.0.0.1",
        "-addext",
        "subjectAltName=IP:127.0.0.1",
        "-keyout",
        join(dir, "key.pem"),
        "-out",
        join(dir, "cert.pem"),
      ],
      { stdio: "ignore" },
    );
    return { cert: readFileSync(join(dir, "cert.pem"), "utf8"), key: readFileSync(join(dir, "key.pem"), "utf8") };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** An https server on 127.0.0.1 serving JSON documents by path (a client's metadata document host). */
export function documentHost(documents: (origin: string) => Record<string, unknown>): { origin: string; fetched: string[]; stop(): void } {
  const fetched: string[] = [];
  const tls = selfSignedCertificate();
  let origin = "";
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    tls,
    fetch(request) {
      const path = new URL(request.url).pathname;
      fetched.push(path);
      const doc = documents(origin)[path];
      return doc === undefined ? new Response("not found", { status: 404 }) : Response.json(doc);
    },
  });
  origin = `https://127.0.0.1:${server.port}`;
  return { origin, fetched, stop: () => void server.stop(true) };
}

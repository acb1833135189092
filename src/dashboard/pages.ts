// The dashboard's HTML and assets, bundled into the binary by Bun's HTML import (CONTRACT §7: every
// asset embedded, nothing from another host). Served from Bun's router beside the API: the page at
// each of the app's paths with a strict Content-Security-Policy, the hashed assets as immutable,
// gzipped when the browser accepts it.
import { readFileSync } from "node:fs";
import { gunzipSync, gzipSync, type HTMLBundle } from "bun";
import page from "./web/index.html";

/** The app's own URLs; the browser-side router decides what each shows. */
export const PAGE_PATHS = ["/", "/sign-in", "/welcome", "/brands", "/brands/*", "/accounts", "/oauth/consent"] as const;

// Scripts and styles from this origin only, no inline script; images may come from the sites an
// article links (the preview); nothing may frame the dashboard.
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: https:",
  "font-src 'self'",
  "connect-src 'self'",
  "frame-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join("; ");

const COMMON_HEADERS = { "x-content-type-options": "nosniff", "referrer-policy": "same-origin" };

interface Asset {
  headers: Record<string, string>;
  body: Blob;
  gzipped: Blob;
}

type Handler = (request: Request) => Response;

function answer(asset: Asset, request: Request): Response {
  if (request.method !== "GET" && request.method !== "HEAD") {
    return new Response("Method not allowed", { status: 405, headers: { allow: "GET, HEAD", ...COMMON_HEADERS } });
  }
  if (request.headers.get("if-none-match") === asset.headers.etag) return new Response(null, { status: 304, headers: asset.headers });
  const gzip = /\bgzip\b/.test(request.headers.get("accept-encoding") ?? "");
  const body = gzip ? asset.gzipped : asset.body;
  const headers = { ...asset.headers, ...(gzip ? { "content-encoding": "gzip" } : {}), vary: "Accept-Encoding" };
  return new Response(request.method === "HEAD" ? null : body, { headers });
}

function load(path: string, headers: Record<string, string>): Asset {
  const bytes = readFileSync(path);
  const gzipped = gzipSync(bytes, { level: 9 });
  if (gunzipSync(gzipped).byteLength !== bytes.byteLength) throw new Error(`gzip of ${path} does not round-trip`);
  // A Response made from a Blob shares its bytes instead of copying them.
  return { headers, body: new Blob([bytes]), gzipped: new Blob([gzipped]) };
}

/**
 * Bun routes for the dashboard. In the compiled binary the bundle lists its files and each is
 * served with the headers above; run from source (`bun src/main.ts`), Bun bundles the page itself.
 */
export function dashboardPages(): Record<string, Handler | HTMLBundle> {
  const bundle = page as unknown as HTMLBundle;
  const routes: Record<string, Handler | HTMLBundle> = {};
  if (!bundle.files) {
    for (const path of PAGE_PATHS) routes[path] = bundle;
    return routes;
  }
  for (const file of bundle.files) {
    if (file.loader === "html") continue;
    const asset = load(file.path, {
      "content-type": file.headers["content-type"],
      etag: `"${file.headers.etag}"`,
      "cache-control": "public, max-age=31536000, immutable",
      ...COMMON_HEADERS,
    });
    routes[`/${file.path.split("/").pop()}`] = (request) => answer(asset, request);
  }
  const html = load(bundle.index, {
    "content-type": "text/html; charset=utf-8",
    etag: `"${Bun.hash(readFileSync(bundle.index)).toString(36)}"`,
    "cache-control": "no-cache",
    "content-security-policy": CONTENT_SECURITY_POLICY,
    "x-frame-options": "DENY",
    ...COMMON_HEADERS,
  });
  for (const path of PAGE_PATHS) routes[path] = (request) => answer(html, request);
  return routes;
}

// The dashboard's HTML and assets, bundled into the binary by Bun's HTML import (CONTRACT §7: every
// asset embedded, nothing from another host). Served from Bun's router beside the API: the page at
// each of the app's paths with a strict Content-Security-Policy, the hashed assets as immutable,
// gzipped when the browser accepts it.
import { readFileSync } from "node:fs";
import { promisify } from "node:util";
import { gunzip, gzip } from "node:zlib";
import { gunzipSync, gzipSync, type HTMLBundle } from "bun";
import { pathOf } from "../http/observability";
import { ARTICLE_STYLE } from "./web/components/article-document";
import page from "./web/index.html";

/** The app's own URLs; the browser-side router decides what each shows. */
export const PAGE_PATHS = ["/", "/sign-in", "/welcome", "/brands", "/brands/*", "/accounts", "/account", "/oauth/consent"] as const;

// Scripts and styles from this origin only, no inline script, and one inline style: the article
// preview's, by its hash (the preview's srcdoc inherits this policy); images may come from the sites
// an article links (the preview); nothing may frame the dashboard.
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  `style-src 'self' 'sha256-${new Bun.CryptoHasher("sha256").update(ARTICLE_STYLE).digest("base64")}'`,
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
  path: string;
  headers: Record<string, string>;
  body: Blob;
  /** Made on first use (gzipped()): compressing the bundle took ~18 ms of start-up, before listening. */
  gzipped: Blob | null;
}

type Handler = (request: Request) => Response;

function answer(asset: Asset, request: Request): Response {
  if (request.method !== "GET" && request.method !== "HEAD") {
    // In the words of every other route's 405 (errors.ts MethodNotAllowed), as JSON.
    return Response.json(
      { error: "This address answers only GET, HEAD.", code: "method_not_allowed" },
      { status: 405, headers: { allow: "GET, HEAD", ...COMMON_HEADERS } },
    );
  }
  if (request.headers.get("if-none-match") === asset.headers.etag) return new Response(null, { status: 304, headers: asset.headers });
  const gzip = /\bgzip\b/.test(request.headers.get("accept-encoding") ?? "");
  const body = gzip ? gzipped(asset) : asset.body;
  const headers = { ...asset.headers, ...(gzip ? { "content-encoding": "gzip" } : {}), vary: "Accept-Encoding" };
  return new Response(request.method === "HEAD" ? null : body, { headers });
}

// Every asset of the last dashboardPages(), for warmDashboardPages; and its page.
let assets: Asset[] = [];
let html: Asset | null = null;

function load(path: string, headers: Record<string, string>): Asset {
  // A Response made from a Blob shares its bytes instead of copying them.
  const asset: Asset = { path, headers, body: new Blob([readFileSync(path)]), gzipped: null };
  assets.push(asset);
  return asset;
}

const GZIP_LEVEL = 9;
const gzipOffThread = promisify(gzip);
const gunzipOffThread = promisify(gunzip);

function roundTrips(asset: Asset, bytes: Uint8Array, unzipped: Uint8Array): void {
  if (unzipped.byteLength !== bytes.byteLength) throw new Error(`gzip of ${asset.path} does not round-trip`);
}

/** The asset gzipped, compressed on the spot when warmDashboardPages has not done it yet. */
function gzipped(asset: Asset): Blob {
  if (!asset.gzipped) {
    const bytes = readFileSync(asset.path);
    const zipped = gzipSync(bytes, { level: GZIP_LEVEL });
    roundTrips(asset, bytes, gunzipSync(zipped));
    asset.gzipped = new Blob([zipped]);
  }
  return asset.gzipped;
}

/**
 * Compresses every asset now (the server calls it once it is listening) rather than on a browser's
 * first visit, on the thread pool (node:zlib's asynchronous gzip), not the serving thread: the
 * bundle's ~300 KB took 9–17 ms in one task (the binary; compressed one asset a task before), now
 * the event loop is free while it runs.
 */
export async function warmDashboardPages(): Promise<void> {
  for (const asset of assets) {
    if (asset.gzipped) continue;
    const bytes = readFileSync(asset.path);
    const zipped = await gzipOffThread(bytes, { level: GZIP_LEVEL });
    roundTrips(asset, bytes, await gunzipOffThread(zipped));
    // A browser's request may have compressed it meanwhile.
    asset.gzipped ??= new Blob([zipped]);
  }
}

/**
 * Bun routes for the dashboard. In the compiled binary the bundle lists its files and each is
 * served with the headers above; run from source (`bun src/main.ts`), Bun bundles the page itself.
 */
export function dashboardPages(): Record<string, Handler | HTMLBundle> {
  const bundle = page as unknown as HTMLBundle;
  const routes: Record<string, Handler | HTMLBundle> = {};
  assets = [];
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
  html = load(bundle.index, {
    "content-type": "text/html; charset=utf-8",
    etag: `"${Bun.hash(readFileSync(bundle.index)).toString(36)}"`,
    "cache-control": "no-cache",
    "content-security-policy": CONTENT_SECURITY_POLICY,
    "x-frame-options": "DENY",
    ...COMMON_HEADERS,
  });
  const index = html;
  for (const path of PAGE_PATHS) routes[path] = (request) => answer(index, request);
  return routes;
}

// Where the server's own answers live: an unknown address there stays a JSON 404 (a client of the
// API, the tool server, OAuth or the health check reads JSON, whatever its Accept header says).
const NOT_PAGES = /^\/(?:api|oauth|\.well-known|healthz)(?:[/?]|$)/;

/**
 * A browser that navigated to an address the server does not know (a mistyped or stale link, such as
 * /settings) gets the dashboard's page with a 404, which shows "Page not found" with a way back, as
 * the app's own unknown paths do, instead of a JSON error. Null for anything else (JSON as before):
 * not a page navigation (a script, an image, curl), or an address of the API.
 */
export function dashboardNotFound(request: Request, headers: Record<string, string>): Response | null {
  if (!html || (request.method !== "GET" && request.method !== "HEAD")) return null;
  const destination = request.headers.get("sec-fetch-dest");
  const navigates = destination === null ? /\btext\/html\b/.test(request.headers.get("accept") ?? "") : destination === "document";
  if (!navigates || NOT_PAGES.test(pathOf(request.url))) return null;
  const { etag: _etag, ...pageHeaders } = html.headers;
  return new Response(request.method === "HEAD" ? null : html.body, { status: 404, headers: { ...pageHeaders, ...headers } });
}

// The public content API, byte for byte against spec "Public content API" and CONTRACT §5.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { publishArticle, unpublishArticle } from "../../src/content/publishing";
import { createArticle, updateArticle } from "../../src/content/service";
import { type Db } from "../../src/db/client";
import { EventHub } from "../../src/events";
import { newId } from "../../src/ids";
import { DATA_VERSION_CHECK_MS, PublicContentCache } from "../../src/public/cache";
import { acceptsGzip, keptEncodings } from "../../src/public/http";
import { secondConnection } from "../support/database";
import { captureLog } from "../support/log";
import { scratchDir } from "../support/scratch";
import { makeWorld, type World } from "./world";

const SPEC_HEADERS = {
  "access-control-allow-origin": "*",
  "access-control-allow-methods": "GET, OPTIONS",
  "cache-control": "public, s-maxage=60, stale-while-revalidate=300",
  // Not the spec's, but every answer of the server's has it.
  "x-content-type-options": "nosniff",
};

let world: World;

beforeEach(async () => {
  world = await makeWorld();
});
afterEach(() => world.close());

function request(path: string, init: RequestInit = {}): Promise<Response> {
  return world.app.handle(new Request(`http://localhost${path}`, init));
}

function listPath(key: string = world.brand.site_key): string {
  return `/api/public/articles?key=${encodeURIComponent(key)}`;
}

function articlePath(slug: string, key: string = world.brand.site_key): string {
  return `/api/public/articles/${slug}?key=${encodeURIComponent(key)}`;
}

function expectSpecHeaders(response: Response, vary: string | null = null): void {
  for (const [name, value] of Object.entries(SPEC_HEADERS)) expect(response.headers.get(name)).toBe(value);
  expect(response.headers.get("vary")).toBe(vary);
  expect(response.headers.get("last-modified")).toBeNull();
}

async function publish(brandId: string, input: { title?: string; markdown?: string; description?: string; slug?: string }) {
  const article = await createArticle(world.ctx.db, brandId, { markdown: "Body text.", ...input });
  return await publishArticle(world.ctx, brandId, article.id);
}

/** Sets published_at directly, so ordering tests do not depend on the clock's resolution. */
async function setPublishedAt(id: string, ms: number): Promise<void> {
  await world.ctx.db.run("UPDATE articles SET published_at = ? WHERE id = ?", [ms, id]);
}

describe("GET /api/public/articles", () => {
  test("lists published articles with exactly the spec's fields, in the spec's order, newest first", async () => {
    const first = await publish(world.brand.id, { title: "First post", description: "The first one", markdown: "# First post\n\nHello." });
    const second = await publish(world.brand.id, { title: "Second post", markdown: "Second." });
    await setPublishedAt(first.id, Date.UTC(2025, 0, 2, 3, 4, 5, 6));
    await setPublishedAt(second.id, Date.UTC(2025, 5, 1));
    // Direct SQL bypasses the cache's invalidation; nothing has been requested yet, so it is cold.
    const response = await request(listPath());
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/json; charset=utf-8");
    expectSpecHeaders(response);
    expect(await response.text()).toBe(
      '{"articles":[' +
        '{"slug":"second-post","title":"Second post","description":null,"publishedAt":"2025-06-01T00:00:00.000Z","updatedAt":null},' +
        '{"slug":"first-post","title":"First post","description":"The first one","publishedAt":"2025-01-02T03:04:05.006Z","updatedAt":null}' +
        "]}",
    );
  });

  test('an article without a title is listed as "Untitled"', async () => {
    await publish(world.brand.id, { markdown: "No title here." });
    const body = await (await request(listPath())).json();
    expect(body.articles[0].title).toBe("Untitled");
    expect(body.articles[0].slug).toBe("untitled");
  });

  test('a title of characters no reader sees (zero-width spaces, joiners) is no title: "Untitled"', async () => {
    await publish(world.brand.id, { title: "\u200b\u200d \u2060\u00ad\u3164\u2800\ufe0f\u0085", markdown: "Invisible title." });
    // Within a visible title, a joiner stays (an emoji sequence; a Persian word's ZWNJ).
    await publish(world.brand.id, { title: "Team \u{1F469}\u200d\u{1F4BB} picks", markdown: "Visible." });
    await publish(world.brand.id, { title: "\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645", markdown: "Persian." });
    // One stored before such titles were refused is shown "Untitled" too (direct SQL, before any request: the cache is cold).
    const old = await publish(world.brand.id, { title: "Stored before", markdown: "Old." });
    await world.ctx.db.run("UPDATE articles SET title = ? WHERE id = ?", ["\u200b", old.id]);
    const body = await (await request(listPath())).json();
    expect(body.articles.map((a: { title: string }) => a.title).sort()).toEqual(
      ["Team \u{1F469}\u200d\u{1F4BB} picks", "Untitled", "Untitled", "\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645"].sort(),
    );
  });

  test("drafts and unpublished articles are never listed", async () => {
    await createArticle(world.ctx.db, world.brand.id, { title: "A draft", markdown: "Draft." });
    const gone = await publish(world.brand.id, { title: "Gone", markdown: "Was public." });
    await unpublishArticle(world.ctx, world.brand.id, gone.id);
    const response = await request(listPath());
    expect(response.status).toBe(200);
    expect(await response.text()).toBe('{"articles":[]}');
  });

  test("an unknown key and malformed keys get 200 with an empty list and the spec's headers", async () => {
    await publish(world.brand.id, { title: "Public", markdown: "x" });
    const keys = [
      `pk_${"0".repeat(32)}`,
      "",
      "pk_",
      "nonsense",
      world.brand.site_key.toUpperCase(),
      `${world.brand.site_key}0`,
      `${world.brand.site_key} `,
      "pk_zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz",
      "' OR 1=1 --",
    ];
    for (const key of keys) {
      const response = await request(listPath(key));
      expect(response.status).toBe(200);
      expectSpecHeaders(response);
      expect(await response.text()).toBe('{"articles":[]}');
    }
    for (const path of ["/api/public/articles", "/api/public/articles?key", "/api/public/articles?other=1"]) {
      const response = await request(path);
      expect(response.status).toBe(200);
      expectSpecHeaders(response);
      expect(await response.text()).toBe('{"articles":[]}');
    }
  });

  test("a site key shows its own brand's articles only", async () => {
    await publish(world.brand.id, { title: "Ours", markdown: "x" });
    await publish(world.other.id, { title: "Theirs", markdown: "y" });
    const ours = await (await request(listPath(world.brand.site_key))).json();
    const theirs = await (await request(listPath(world.other.site_key))).json();
    expect(ours.articles.map((a: { slug: string }) => a.slug)).toEqual(["ours"]);
    expect(theirs.articles.map((a: { slug: string }) => a.slug)).toEqual(["theirs"]);
  });

  test("a publish is listed on the very next request, and an unpublish is gone at once", async () => {
    expect(await (await request(listPath())).text()).toBe('{"articles":[]}');
    const draft = await createArticle(world.ctx.db, world.brand.id, { title: "Fresh", markdown: "New." });
    expect(await (await request(listPath())).text()).toBe('{"articles":[]}');
    await publishArticle(world.ctx, world.brand.id, draft.id);
    const listed = await (await request(listPath())).json();
    expect(listed.articles.map((a: { slug: string }) => a.slug)).toEqual(["fresh"]);
    const single = await request(articlePath("fresh"));
    expect(single.status).toBe(200);
    await unpublishArticle(world.ctx, world.brand.id, draft.id);
    expect(await (await request(listPath())).text()).toBe('{"articles":[]}');
    expect((await request(articlePath("fresh"))).status).toBe(404);
  });

  test("an edit of a published article is served on the very next request", async () => {
    const article = await publish(world.brand.id, { title: "Before", markdown: "Old body.", description: "old" });
    expect((await (await request(articlePath(article.slug))).json()).article.html).toBe("<p>Old body.</p>\n");
    await updateArticle(world.ctx, world.brand.id, article.id, { title: "After", markdown: "New body.", description: "new" });
    const single = await (await request(articlePath(article.slug))).json();
    expect(single.article).toMatchObject({ title: "After", description: "new", html: "<p>New body.</p>\n" });
    const list = await (await request(listPath())).json();
    expect(list.articles[0]).toMatchObject({ slug: "before", title: "After", description: "new" });
  });

  test("at most 500 articles are listed (501 published), newest first", async () => {
    const base = Date.UTC(2024, 0, 1);
    const rows = Array.from({ length: 501 }, (_, i) => ({
      id: newId("art"),
      brandId: world.brand.id,
      title: `Article ${i}`,
      slug: `article-${i}`,
      markdown: "x",
      html: "<p>x</p>",
      status: "published" as const,
      publishedAt: base + i * 60_000,
      createdAt: base,
      updatedAt: base,
    }));
    await world.ctx.db.transaction(async (tx) => {
      for (const row of rows) {
        await tx.run(
          "INSERT INTO articles (id, brand_id, title, slug, markdown, html, status, published_at, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
          [row.id, row.brandId, row.title, row.slug, row.markdown, row.html, row.status, row.publishedAt, row.createdAt, row.updatedAt],
        );
      }
    });
    const response = await request(listPath());
    const body = await response.json();
    expect(body.articles).toHaveLength(500);
    expect(body.articles[0].slug).toBe("article-500");
    expect(body.articles[499].slug).toBe("article-1");
    expect(body.articles.some((a: { slug: string }) => a.slug === "article-0")).toBe(false);
  });
});

describe("GET /api/public/articles/:slug", () => {
  test("returns the article with exactly the spec's fields, in order, without the repeated H1", async () => {
    const article = await publish(world.brand.id, {
      title: "Best CRM for startups",
      description: "How to choose",
      markdown: "# Best CRM for startups\n\nPick **Acme**.\n\n| a | b |\n|---|---|\n| 1 | 2 |\n",
    });
    await setPublishedAt(article.id, Date.UTC(2025, 2, 3, 4, 5, 6));
    const response = await request(articlePath("best-crm-for-startups"));
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/json; charset=utf-8");
    expectSpecHeaders(response);
    const html =
      "<p>Pick <strong>Acme</strong>.</p>\n<table>\n<thead>\n<tr>\n<th>a</th>\n<th>b</th>\n</tr>\n</thead>\n<tbody><tr>\n<td>1</td>\n<td>2</td>\n</tr>\n</tbody></table>\n";
    expect(await response.text()).toBe(
      `{"article":{"slug":"best-crm-for-startups","title":"Best CRM for startups","description":"How to choose","html":${JSON.stringify(html)},"publishedAt":"2025-03-03T04:05:06.000Z","updatedAt":null}}`,
    );
  });

  test('unknown slug, unknown key, malformed key, draft and another brand\'s article: 404 {"error":"Not found"} with the spec\'s headers', async () => {
    await publish(world.brand.id, { title: "Ours", markdown: "x" });
    await publish(world.other.id, { title: "Theirs", markdown: "y" });
    await createArticle(world.ctx.db, world.brand.id, { title: "Draft only", markdown: "z" });
    const paths = [
      articlePath("nope"),
      articlePath("ours", `pk_${"1".repeat(32)}`),
      articlePath("ours", "garbage"),
      articlePath("ours", ""),
      "/api/public/articles/ours",
      articlePath("draft-only"),
      articlePath("theirs"),
      articlePath("ours", world.other.site_key),
      articlePath("OURS"),
      articlePath("%2e%2e"),
      articlePath("ours%00"),
    ];
    for (const path of paths) {
      const response = await request(path);
      expect(response.status).toBe(404);
      expectSpecHeaders(response);
      expect(response.headers.get("content-type")).toBe("application/json; charset=utf-8");
      expect(response.headers.get("etag")).toBeNull();
      expect(await response.text()).toBe('{"error":"Not found"}');
    }
  });
  test("a slug with a malformed percent-escape is 404 Not found, with no error logged", async () => {
    await publish(world.brand.id, { title: "Ours", markdown: "x" });
    const log = await captureLog(async () => {
      for (const slug of ["%ff", "%", "%zz", "%E0%A4%A", "a%c0%af", "ours%"]) {
        const response = await request(articlePath(slug));
        expect(response.status).toBe(404);
        expectSpecHeaders(response);
        expect(await response.text()).toBe('{"error":"Not found"}');
      }
    });
    expect(log).not.toContain('"level":"error"');
    expect((await request(articlePath("ours"))).status).toBe(200);
  });
});

describe("every response of the surface carries the spec's headers", () => {
  test("OPTIONS is 204 with Allow-Headers (If-None-Match, and the headers fetch habits add: Cache-Control, Pragma…) and a max age", async () => {
    for (const path of [listPath(), articlePath("x"), "/api/public/articles", "/api/public/nothing-here"]) {
      const plain = await request(path, { method: "OPTIONS" });
      const preflight = await request(path, {
        method: "OPTIONS",
        headers: {
          origin: "https://brand.example",
          "access-control-request-method": "GET",
          "access-control-request-headers": "if-none-match",
        },
      });
      for (const response of [plain, preflight]) {
        expect(response.status).toBe(204);
        expectSpecHeaders(response);
        expect(response.headers.get("access-control-allow-headers")).toBe(
          "If-None-Match, Cache-Control, Pragma, Content-Type, X-Requested-With",
        );
        expect(response.headers.get("x-content-type-options")).toBe("nosniff");
        expect(response.headers.get("access-control-max-age")).toBe("600");
        expect(response.headers.get("access-control-allow-credentials")).toBeNull();
        expect(await response.text()).toBe("");
      }
    }
  });

  test("a cross-origin GET gets Allow-Origin * (never the reflected origin)", async () => {
    const response = await request(listPath(), { headers: { origin: "https://brand.example" } });
    expect(response.status).toBe(200);
    expectSpecHeaders(response);
    expect(response.headers.get("access-control-allow-credentials")).toBeNull();
  });

  test("HEAD answers like GET: same status and headers (Bun's server drops the body on the wire)", async () => {
    await publish(world.brand.id, { title: "Headed", markdown: "x" });
    const get = await request(listPath());
    const head = await request(listPath(), { method: "HEAD" });
    expect(head.status).toBe(200);
    expectSpecHeaders(head);
    expect(head.headers.get("etag")).toBe(get.headers.get("etag"));
    expect(head.headers.get("content-type")).toBe("application/json; charset=utf-8");
    // No body and the right Content-Length are checked over a real socket (test/e2e/content.test.ts).
    const headSingle = await request(articlePath("headed"), { method: "HEAD" });
    expect(headSingle.status).toBe(200);
    expectSpecHeaders(headSingle);
    const headMissing = await request(articlePath("missing"), { method: "HEAD" });
    expect(headMissing.status).toBe(404);
    expectSpecHeaders(headMissing);
  });

  test('unknown paths under /api/public are 404 {"error":"Not found"} with the headers', async () => {
    for (const path of [
      "/api/public",
      "/api/public/",
      "/api/public/other",
      "/api/public/articles/a/b",
      "/api/public/articles/x/y/z?key=1",
    ]) {
      for (const method of ["GET", "HEAD"]) {
        const response = await request(path, { method });
        expect(response.status).toBe(404);
        expectSpecHeaders(response);
        if (method === "GET") expect(await response.text()).toBe('{"error":"Not found"}');
      }
    }
  });

  test("other methods are 405 with Allow and the headers", async () => {
    for (const method of ["POST", "PUT", "DELETE", "PATCH"]) {
      for (const path of [listPath(), articlePath("x")]) {
        const response = await request(path, { method, body: method === "DELETE" ? undefined : "{}" });
        expect(response.status).toBe(405);
        expectSpecHeaders(response);
        expect(response.headers.get("allow")).toBe("GET, HEAD, OPTIONS");
        expect(await response.text()).toBe('{"error":"Method not allowed"}');
      }
    }
  });

  test("the CORS headers stay on this surface: other routes do not get them", async () => {
    const health = await request("/healthz", { headers: { origin: "https://brand.example" } });
    expect(health.headers.get("access-control-allow-origin")).toBeNull();
    expect(health.headers.get("cache-control")).toBeNull();
    const options = await request("/healthz", { method: "OPTIONS" });
    expect(options.headers.get("access-control-allow-origin")).toBeNull();
  });
});

describe("cached hits", () => {
  test("a repeated request (answered from the cache without a dispatch) is byte for byte the first answer", async () => {
    await publish(world.brand.id, { title: "Cached", markdown: "Some **bold** text." });
    // Outside ASCII: the cache keeps only the UTF-8 bytes, and both ways of answering serve them.
    await publish(world.brand.id, { title: "Café ☕ 🚀", slug: "cafe", markdown: "Crème brûlée, 日本語, emoji 🚀." });
    const snapshot = async (response: Response) => {
      const headers = [...response.headers].filter(([name]) => name !== "x-request-id");
      return { status: response.status, headers, body: await response.text(), id: response.headers.get("x-request-id") };
    };
    for (const path of [listPath(), articlePath("cached"), articlePath("cafe"), listPath("pk_00000000000000000000000000000000")]) {
      const first = await snapshot(await request(path));
      const second = await snapshot(await request(path));
      expect(second.status).toBe(first.status);
      expect(second.headers).toEqual(first.headers);
      expect(second.body).toBe(first.body);
      expect(second.id).not.toBe(first.id);
      const etag = first.headers.find(([name]) => name === "etag")?.[1] ?? "";
      const revalidated = await snapshot(await request(path, { headers: { "if-none-match": etag } }));
      expect(revalidated.status).toBe(304);
      expect(revalidated.body).toBe("");
    }
    expect((await (await request(articlePath("cafe"))).json()).article).toMatchObject({
      title: "Café ☕ 🚀",
      html: "<p>Crème brûlée, 日本語, emoji 🚀.</p>\n",
    });
  });
});

describe("compression", () => {
  test("an article of 1 KB or more is gzipped for a client that accepts it, with its own ETag and Vary; the first answer and cached hits alike", async () => {
    const markdown = Array.from({ length: 60 }, (_, i) => `Paragraph ${i}: Acme keeps a sales team's pipeline in one place.`).join("\n\n");
    await publish(world.brand.id, { title: "Long read", markdown });
    await publish(world.brand.id, { title: "Short", markdown: "Tiny." });
    const gzipAnswer = async (extra: Record<string, string> = {}) => {
      const gzipped = await request(articlePath("long-read"), { headers: { "accept-encoding": "br;q=1, gzip;q=0.8, deflate", ...extra } });
      expect(gzipped.status).toBe(200);
      expectSpecHeaders(gzipped, "Accept-Encoding");
      expect(gzipped.headers.get("content-encoding")).toBe("gzip");
      expect(gzipped.headers.get("content-type")).toBe("application/json; charset=utf-8");
      // Not a file: no ranges on either path.
      expect(gzipped.headers.get("accept-ranges")).toBeNull();
      expect(gzipped.headers.get("content-range")).toBeNull();
      return { etag: gzipped.headers.get("etag")!, bytes: new Uint8Array(await gzipped.arrayBuffer()) };
    };
    // The first answer of this body is gzipped, through the surface (a Range asked for is not honoured).
    const first = await gzipAnswer({ range: "bytes=0-9" });
    const plain = await request(articlePath("long-read"));
    const body = await plain.text();
    expect(body.length).toBeGreaterThan(1024);
    expect(plain.headers.get("content-encoding")).toBeNull();
    expect(plain.headers.get("vary")).toBe("Accept-Encoding");
    const etag = plain.headers.get("etag")!;
    expect(first.etag).toBe(`${etag.slice(0, -1)}-gz"`);
    expect(first.bytes.length).toBeLessThan(body.length / 3);
    expect(new TextDecoder().decode(Bun.gunzipSync(first.bytes))).toBe(body);
    // Then cached hits, with the same bytes.
    for (let i = 0; i < 2; i++) expect(await gzipAnswer()).toEqual(first);
    // Each form revalidates with its own ETag; the other form's tag gets that form's body.
    for (const [tag, encoding, status] of [
      [first.etag, "gzip", 304],
      [etag, "identity", 304],
      [etag, "gzip", 200],
      [first.etag, "identity", 200],
    ] as const) {
      const answer = await request(articlePath("long-read"), { headers: { "if-none-match": tag, "accept-encoding": encoding } });
      expect(`${tag} ${encoding} ${answer.status}`).toBe(`${tag} ${encoding} ${status}`);
      expect(answer.headers.get("etag")).toBe(encoding === "gzip" ? first.etag : etag);
      expect(answer.headers.get("vary")).toBe("Accept-Encoding");
    }
    // Refused or absent gzip (a named refusal beats *), and a short body: the plain bytes, and no Vary for a body that has one form.
    // Twice each: a value seen before is answered from what the first time found.
    for (const encoding of ["gzip;q=0", "gzip;q=0, *", "identity", "br", "gzip;q=0", "gzip;q=0, *", "identity", "br"]) {
      const response = await request(articlePath("long-read"), { headers: { "accept-encoding": encoding } });
      expect(`${encoding}: ${response.headers.get("content-encoding")}`).toBe(`${encoding}: null`);
      expect(await response.text()).toBe(body);
    }
    expect((await request(articlePath("long-read"), { headers: { "accept-encoding": "*" } })).headers.get("content-encoding")).toBe("gzip");
    const short = await request(articlePath("short"), { headers: { "accept-encoding": "gzip" } });
    expect(short.headers.get("content-encoding")).toBeNull();
    expectSpecHeaders(short);
  });
});

describe("ETag and If-None-Match", () => {
  test("200s carry an ETag; a matching If-None-Match gets 304 with the same headers and no body", async () => {
    await publish(world.brand.id, { title: "Tagged", markdown: "x" });
    for (const path of [listPath(), articlePath("tagged"), listPath("unknown")]) {
      const first = await request(path);
      const etag = first.headers.get("etag")!;
      expect(etag).toMatch(/^"[^"]+"$/);
      const variants = [etag, `W/${etag}`, "*", `"nope", ${etag}`, `W/"a",W/${etag} , "b"`, `"x",*`];
      for (const value of variants) {
        for (const method of ["GET", "HEAD"]) {
          const response = await request(path, { method, headers: { "if-none-match": value } });
          expect(response.status).toBe(304);
          expectSpecHeaders(response);
          expect(response.headers.get("etag")).toBe(etag);
          expect(response.headers.get("content-type")).toBeNull();
          expect(await response.text()).toBe("");
        }
      }
      for (const value of ['"other"', `W/"other"`, etag.slice(1, -1), ""]) {
        const response = await request(path, { headers: { "if-none-match": value } });
        expect(response.status).toBe(200);
        expect(response.headers.get("etag")).toBe(etag);
      }
    }
  });

  test("If-None-Match: * on a missing article is still 404", async () => {
    const response = await request(articlePath("missing"), { headers: { "if-none-match": "*" } });
    expect(response.status).toBe(404);
    expectSpecHeaders(response);
  });

  test("the ETag changes when the content changes, so an old copy is not revalidated", async () => {
    const article = await publish(world.brand.id, { title: "Versioned", markdown: "v1" });
    const before = (await request(articlePath("versioned"))).headers.get("etag")!;
    const listBefore = (await request(listPath())).headers.get("etag")!;
    await updateArticle(world.ctx, world.brand.id, article.id, { markdown: "v2", description: "now described" });
    const after = await request(articlePath("versioned"), { headers: { "if-none-match": before } });
    expect(after.status).toBe(200);
    expect(after.headers.get("etag")).not.toBe(before);
    const listAfter = await request(listPath(), { headers: { "if-none-match": listBefore } });
    expect(listAfter.status).toBe(200);
  });
});

/** Waits until the cache holds the site key's list (on PostgreSQL, setup writes' notifications may still drop it). */
async function settledCache(cache: PublicContentCache, key: string): Promise<void> {
  for (let tries = 0; tries < 50 && cache.cachedList(key) === null; tries++) {
    await cache.list(key);
    if (cache.cachedList(key) === null) await Bun.sleep(20);
  }
  expect(cache.cachedList(key)).not.toBeNull();
}

/** Moves the cache's change stamp as another instance's or process's write would. */
async function moveStamp(db: Db, brandId: string): Promise<void> {
  if (db.dialect === "postgres") {
    db.changes.bump(["brands"]);
    return;
  }
  const other = await secondConnection(db);
  try {
    await other.run("UPDATE brands SET name = name WHERE id = ?", [brandId]);
  } finally {
    await other.close();
  }
  await Bun.sleep(DATA_VERSION_CHECK_MS + 1);
}

describe("the cache and other processes", () => {
  test("a change of another instance is seen: on PostgreSQL by the very next request, on SQLite after the check interval", async () => {
    const world = await makeWorld({ dbPath: join(scratchDir("spyglass-public-"), "spyglass.db") });
    try {
      const db = world.ctx.db;
      const cache = new PublicContentCache(db);
      const key = world.brand.site_key;
      // On PostgreSQL, the notifications of the world's own setup writes may still be on their way and drop the first entries.
      for (let tries = 0; tries < 50 && cache.cachedList(key) === null; tries++) {
        await cache.list(key);
        if (cache.cachedList(key) === null) await Bun.sleep(20);
      }
      expect(cache.cachedList(key)).not.toBeNull();
      // Another instance's (or process's) write, as this one learns of it.
      if (db.dialect === "postgres") {
        // A write to a table the cache does not read (a key's last use) leaves it; an article's drops it.
        db.changes.bump(["api_keys"]);
        expect(cache.cachedList(key)).not.toBeNull();
        db.changes.bump(["articles"]);
        expect(cache.cachedList(key)).toBeNull();
      } else {
        const other = await secondConnection(db);
        try {
          await other.run("UPDATE brands SET name = name WHERE id = ?", [world.brand.id]);
        } finally {
          await other.close();
        }
        await Bun.sleep(DATA_VERSION_CHECK_MS + 1);
        expect(cache.cachedList(key)).toBeNull();
      }
    } finally {
      await world.close();
    }
  });

  test("while the database does not answer, what was served before the cache was dropped is served again; a known change is not", async () => {
    const world = await makeWorld({ dbPath: join(scratchDir("spyglass-public-"), "spyglass.db") });
    try {
      const db = world.ctx.db;
      const draft = await createArticle(db, world.brand.id, { title: "Served before", markdown: "Hello." });
      await publishArticle(world.ctx, world.brand.id, draft.id);
      const second = await createArticle(db, world.brand.id, { title: "Never asked for", markdown: "Hi." });
      await publishArticle(world.ctx, world.brand.id, second.id);
      let failing = false;
      const down = () => {
        throw new Error("connection refused");
      };
      // The same database, whose reads fail on demand (as PostgreSQL's do while it is down).
      const flaky = new Proxy(db, {
        get(target, property, receiver) {
          if (failing && (property === "get" || property === "all")) return down;
          const value = Reflect.get(target, property, receiver);
          return typeof value === "function" ? value.bind(target) : value;
        },
      });
      const cache = new PublicContentCache(flaky);
      const key = world.brand.site_key;
      await settledCache(cache, key);
      const list = await cache.list(key);
      const article = (await cache.article(key, "served-before"))!;
      // Something moves the stamp (another instance's write; on PostgreSQL also the 5 s bound), and the database goes down.
      await moveStamp(db, world.brand.id);
      failing = true;
      expect(cache.cachedList(key)).toBeNull();
      expect((await cache.list(key)).etag).toBe(list.etag);
      expect((await cache.article(key, "served-before"))!.etag).toBe(article.etag);
      // What was never served cannot be served from memory: the failure stands.
      await expect(cache.article(key, "never-asked-for")).rejects.toThrow("connection refused");
      // A database that stops answering without failing (a partition): the same, once the bound has passed.
      const hung = new Proxy(db, {
        get(target, property, receiver) {
          if (failing && (property === "get" || property === "all")) return () => new Promise(() => undefined);
          const value = Reflect.get(target, property, receiver);
          return typeof value === "function" ? value.bind(target) : value;
        },
      });
      const bounded = new PublicContentCache(hung, { loadTimeoutMs: 100 });
      failing = false;
      await settledCache(bounded, key);
      const before = await bounded.list(key);
      await moveStamp(db, world.brand.id);
      failing = true;
      expect((await bounded.list(key)).etag).toBe(before.etag);
      await expect(bounded.article(key, "never-asked-for")).rejects.toThrow("the database did not answer within 100 ms");
      // A known change of the brand's articles (an unpublish through this server) is not answered with what it replaced.
      cache.invalidateBrand(world.brand.id);
      await expect(cache.list(key)).rejects.toThrow("connection refused");
      failing = false;
      expect((await cache.list(key)).etag).toBe(list.etag);
    } finally {
      await world.close();
    }
  });

  test("a publish made through another connection (the CLI) is served within the cache's check interval", async () => {
    const dir = scratchDir("spyglass-public-");
    const path = join(dir, "spyglass.db");
    const shared = await makeWorld({ dbPath: path });
    try {
      const served = (p: string) => shared.app.handle(new Request(`http://localhost${p}`));
      const key = shared.brand.site_key;
      expect(await (await served(`/api/public/articles?key=${key}`)).text()).toBe('{"articles":[]}');
      const cli = await secondConnection(shared.ctx.db);
      try {
        const draft = await createArticle(cli, shared.brand.id, { title: "From the CLI", markdown: "Hi." });
        // The change is seen at the next check (every DATA_VERSION_CHECK_MS; on PostgreSQL, when its
        // notification arrives): asked again at that pace, within a bound far above it, since a
        // busy machine delays either (CI run 8 had the notification arrive after one interval).
        const listedSlugs = async () =>
          ((await (await served(`/api/public/articles?key=${key}`)).json()) as { articles: Array<{ slug: string }> }).articles.map(
            (a) => a.slug,
          );
        const eventually = async (wanted: string[]) => {
          let seen = await listedSlugs();
          for (const until = Date.now() + 5_000; JSON.stringify(seen) !== JSON.stringify(wanted) && Date.now() < until; ) {
            await Bun.sleep(DATA_VERSION_CHECK_MS + 1);
            seen = await listedSlugs();
          }
          return seen;
        };
        await publishArticle({ db: cli, events: new EventHub() }, shared.brand.id, draft.id);
        expect(await eventually(["from-the-cli"])).toEqual(["from-the-cli"]);
        await unpublishArticle({ db: cli, events: new EventHub() }, shared.brand.id, draft.id);
        expect(await eventually([])).toEqual([]);
      } finally {
        await cli.close();
      }
    } finally {
      await shared.close();
    }
  });
});

describe("Accept-Encoding", () => {
  test("each value is read as RFC 9110 has it, the first time and when seen again, beyond the values kept", () => {
    // 300 distinct values (more than are kept), each asked three times in turn.
    const cases: Array<[string, boolean]> = [];
    for (let i = 0; i < 100; i++) {
      cases.push([`br;q=0.${i % 9}, gzip;q=0.${(i % 9) + 1}, x-custom-${i}`, true]);
      cases.push([`gzip;q=0, *;q=0.${(i % 9) + 1}, x-custom-${i}`, false]);
      cases.push([`identity, x-custom-${i};q=0.5`, false]);
    }
    cases.push(["*", true], ["x-gzip", true], ["*;q=0", false], [`${"x".repeat(300)}, gzip`, true], [`${"x".repeat(300)}`, false]);
    for (let pass = 0; pass < 3; pass++) {
      for (const [value, expected] of cases) {
        expect(`${value}: ${acceptsGzip(value)}`).toBe(`${value}: ${expected}`);
        // A few values are kept, never one of over 256 characters.
        expect(keptEncodings().size).toBeLessThanOrEqual(64);
        expect(keptEncodings().has(value)).toBe(value.length <= 256);
      }
    }
    expect(acceptsGzip(null)).toBe(false);
  });
});

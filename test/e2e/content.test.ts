// Articles end to end on the compiled binary: the content tools over the MCP SDK client, the writer
// against a loopback stand-in model, the public content API over a real socket (HEAD, 304,
// preflight), a publish made by another process, and a small site on another origin that lists and
// renders articles with fetch in headless Chromium.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { type Client } from "@modelcontextprotocol/sdk/client/index.js";
import { chromium } from "playwright-core";
import { publishArticle } from "../../src/content/publishing";
import { createArticle } from "../../src/content/service";
import { EventHub } from "../../src/events";
import { DATA_VERSION_CHECK_MS } from "../../src/public/cache";
import { SANDBOX_DATABASE, type Sandbox, type ServerProcess, sandbox } from "../support/binary";
import { answer, type FakeProvider, startFakeOpenAI } from "../support/fake-providers";
import { seedToolServerDb, type ToolServerSeed } from "../support/fixtures";
import { call, connect } from "../support/mcp";
import { CHROMIUM_PATH } from "../support/xss-harness";

const SPEC_HEADERS = {
  "access-control-allow-origin": "*",
  "access-control-allow-methods": "GET, OPTIONS",
  "cache-control": "public, s-maxage=60, stale-while-revalidate=300",
  // Not the spec's, but every answer of the server's has it.
  "x-content-type-options": "nosniff",
};

/** A sandbox whose [writer] is the stand-in model `writer`; `extra` adds lines to that section. */
function writerSandbox(writer: FakeProvider, extra = ""): Promise<Sandbox> {
  return sandbox({
    toml: `[tracking]\nenabled = false\n\n[writer]\napi = "openai"\nbase_url = "${writer.url}"\nmodel = "writer-e2e"\napi_key_env = "E2E_WRITER_KEY"\nmax_retries = 0\n${extra}`,
    env: { E2E_WRITER_KEY: "sk-e2e-writer" },
  });
}

let box: Sandbox;
let server: ServerProcess;
let seed: ToolServerSeed;
let writer: FakeProvider;
let a: Client;
let b: Client;
let siteKeyA: string;

beforeAll(async () => {
  writer = startFakeOpenAI({
    apiKey: "sk-e2e-writer",
    fallback: answer(
      "---\ntitle: Written by the model\ndescription: Drafted from the brief.\n---\n# Written by the model\n\nA **fine** answer.<script>alert(1)</script>",
    ),
  });
  box = await writerSandbox(writer);
  seed = await box.withDb(seedToolServerDb);
  server = await box.serve({ timeoutMs: 60_000 });
  a = await connect(server.url, seed.a.key);
  b = await connect(server.url, seed.b.key);
  siteKeyA = (await call(a, "get_brand")).data.brand.site_key as string;
}, 60_000);

afterAll(async () => {
  await a?.close().catch(() => undefined);
  await b?.close().catch(() => undefined);
  await server?.stop();
  box?.cleanup();
  await writer?.stop();
});

function expectSpecHeaders(response: Response): void {
  for (const [name, value] of Object.entries(SPEC_HEADERS)) expect(response.headers.get(name)).toBe(value);
  expect(response.headers.get("vary")).toBeNull();
  expect(response.headers.get("last-modified")).toBeNull();
}

const publicUrl = (path: string, key = siteKeyA) => `${server.url}/api/public/articles${path}?key=${key}`;

describe("content tools on the binary", () => {
  test("create_article → publish_to_site → the public API serves it at once; unpublish removes it at once", async () => {
    const created = await call(a, "create_article", {
      title: "E2E article",
      description: "Checked over a real socket",
      markdown: "# E2E article\n\nHello <img src=x onerror=alert(1)> world.",
    });
    expect(created.error).toBeNull();
    const article = created.data.article;
    expect(article).toMatchObject({ slug: "e2e-article", status: "draft" });
    expect((await fetch(publicUrl("/e2e-article"))).status).toBe(404);

    const published = await call(a, "publish_to_site", { article_id: article.id });
    expect(published.data.article.status).toBe("published");
    const single = await fetch(publicUrl("/e2e-article"));
    expect(single.status).toBe(200);
    expectSpecHeaders(single);
    expect(await single.text()).toBe(
      JSON.stringify({
        article: {
          slug: "e2e-article",
          title: "E2E article",
          description: "Checked over a real socket",
          html: '<p>Hello <img src="x"> world.</p>\n',
          publishedAt: published.data.article.published_at,
          updatedAt: null,
        },
      }),
    );
    const list = await fetch(publicUrl(""));
    expect(list.status).toBe(200);
    expectSpecHeaders(list);
    const item = {
      slug: "e2e-article",
      title: "E2E article",
      description: "Checked over a real socket",
      publishedAt: published.data.article.published_at,
      updatedAt: null,
    };
    // Newest first: ahead of the article the fixtures published a day ago.
    const listed = await list.text();
    expect(listed.startsWith(`{"articles":[${JSON.stringify(item)},{"slug":"${seed.a.ids.articleSlug}"`)).toBe(true);

    await call(a, "unpublish_article", { article_id: article.id });
    expect((await fetch(publicUrl("/e2e-article"))).status).toBe(404);
    const after = (await (await fetch(publicUrl(""))).json()) as { articles: Array<{ slug: string }> };
    expect(after.articles.map((x) => x.slug)).toEqual([seed.a.ids.articleSlug]);
    await call(a, "publish_to_site", { article_id: article.id });
  });

  test("brand B's key gets the same not-found error for brand A's article as for an unknown id", async () => {
    const article = (await call(a, "create_article", { title: "A only", markdown: "private" })).data.article;
    for (const name of ["get_article", "update_article", "publish_to_site", "unpublish_article"]) {
      const foreign = await call(b, name, { article_id: article.id });
      const unknown = await call(b, name, { article_id: "art_0000000000000000" });
      expect(foreign.error).toContain("Article not found");
      expect(foreign.error).toBe(unknown.error);
      expect(JSON.stringify(foreign.result)).not.toContain("private");
    }
    const listedForB = (await call(b, "list_articles")).data.articles as Array<{ id: string }>;
    expect(listedForB.map((x) => x.id)).toEqual([seed.b.ids.articleId]);
  });

  test("generate_article drafts with the configured writer and the brief names the prompt", async () => {
    const outcome = await call(a, "generate_article", { prompt_id: seed.a.ids.promptId });
    expect(outcome.error).toBeNull();
    expect(outcome.data.article).toMatchObject({
      title: "Written by the model",
      description: "Drafted from the brief.",
      status: "draft",
      prompt_id: seed.a.ids.promptId,
    });
    expect(outcome.data.article.html).toBe("<p>A <strong>fine</strong> answer.</p>\n");
    expect(writer.requests.at(-1)!.prompt).toContain("best Acme software for small teams");
    expect(writer.requests.at(-1)!.prompt).toContain("Acme Analytics");
  });
});

describe("the public content API over a real socket", () => {
  test("HEAD: the GET's headers and Content-Length, no body", async () => {
    const get = await fetch(publicUrl("/e2e-article"));
    const body = await get.text();
    const head = await fetch(publicUrl("/e2e-article"), { method: "HEAD" });
    expect(head.status).toBe(200);
    expectSpecHeaders(head);
    expect(head.headers.get("etag")).toBe(get.headers.get("etag"));
    expect(head.headers.get("content-length")).toBe(String(Buffer.byteLength(body)));
    expect(await head.text()).toBe("");
    for (const url of [publicUrl("/missing"), `${server.url}/api/public/elsewhere`]) {
      const missing = await fetch(url, { method: "HEAD" });
      expect(missing.status).toBe(404);
      expectSpecHeaders(missing);
      expect(await missing.text()).toBe("");
    }
  });

  test("304 on a matching If-None-Match, with the same headers", async () => {
    const first = await fetch(publicUrl(""));
    const etag = first.headers.get("etag")!;
    const again = await fetch(publicUrl(""), { headers: { "if-none-match": `W/${etag}` } });
    expect(again.status).toBe(304);
    expectSpecHeaders(again);
    expect(again.headers.get("etag")).toBe(etag);
  });

  test("a browser-style preflight gets 204 with Allow-Headers (If-None-Match and the headers fetch habits add) and a max age", async () => {
    const response = await fetch(publicUrl(""), {
      method: "OPTIONS",
      headers: {
        origin: "https://brand.example",
        "access-control-request-method": "GET",
        "access-control-request-headers": "if-none-match",
      },
    });
    expect(response.status).toBe(204);
    expectSpecHeaders(response);
    expect(response.headers.get("access-control-allow-headers")).toBe(
      "If-None-Match, Cache-Control, Pragma, Content-Type, X-Requested-With",
    );
    expect(response.headers.get("access-control-max-age")).toBe("600");
  });

  test("unknown paths and keys answer with the spec's bodies and headers", async () => {
    for (const [url, status, body] of [
      [`${server.url}/api/public/nothing`, 404, '{"error":"Not found"}'],
      [publicUrl("/e2e-article", `pk_${"f".repeat(32)}`), 404, '{"error":"Not found"}'],
      [publicUrl("", "pk_bad"), 200, '{"articles":[]}'],
    ] as const) {
      const response = await fetch(url);
      expect(response.status).toBe(status);
      expectSpecHeaders(response);
      expect(await response.text()).toBe(body);
    }
  });

  test("repeated reads (answered from the cache) match the first answer, whatever the query's spelling", async () => {
    const plain = await (await fetch(publicUrl(""))).text();
    expect(JSON.parse(plain).articles.length).toBeGreaterThan(0);
    const encodedKey = `%70${siteKeyA.slice(1)}`; // "p" percent-encoded: the same key once decoded
    for (const url of [
      publicUrl(""),
      `${server.url}/api/public/articles?utm_source=x&key=${siteKeyA}`,
      `${server.url}/api/public/articles?key=${encodedKey}`,
    ]) {
      for (let i = 0; i < 3; i++) expect(await (await fetch(url)).text()).toBe(plain);
    }
    // A repeated key is left to the framework's parser: whatever it answers, it answers every time.
    const twice = `${server.url}/api/public/articles?key=${siteKeyA}&key=pk_${"0".repeat(32)}`;
    const first = await (await fetch(twice)).text();
    for (let i = 0; i < 3; i++) expect(await (await fetch(twice)).text()).toBe(first);
  });

  test("every public read gets one access-log line with its path, status and request id, never the site key", async () => {
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await fetch(publicUrl(""))).headers.get("x-request-id")!);
    expect(new Set(ids).size).toBe(3);
    // The access log is batched (flushed within 100 ms), then read through a pipe: waited for, not slept on.
    const read = () =>
      server
        .logs()
        .trim()
        .split("\n")
        .map((line) => JSON.parse(line));
    const deadline = performance.now() + 10_000;
    let lines = read();
    while (!ids.every((id) => lines.some((line) => line.request_id === id)) && performance.now() < deadline) {
      await Bun.sleep(20);
      lines = read();
    }
    for (const id of ids) {
      const mine = lines.filter((line) => line.request_id === id);
      expect(mine).toHaveLength(1);
      expect(mine[0]).toMatchObject({ level: "info", msg: "request", method: "GET", path: "/api/public/articles", status: 200 });
    }
    expect(server.logs()).not.toContain(siteKeyA);
  });

  test("a publish made by another process on the same database (the CLI) is served within the cache's check interval", async () => {
    expect((await fetch(publicUrl(""))).status).toBe(200);
    await box.withDb(async (db) => {
      const draft = await createArticle(db, seed.a.brandId, { title: "From another process", markdown: "Hi." });
      await publishArticle({ db, events: new EventHub() }, seed.a.brandId, draft.id);
    });
    await Bun.sleep(DATA_VERSION_CHECK_MS + 1);
    // On SQLite the next request after the check interval reads the change. On PostgreSQL it comes with
    // the change feed's notification, a round trip after the commit that a loaded machine can stretch
    // (CI once saw the old list 11 ms after): asked again for up to 2 s, well within STALE_AFTER_MS, so
    // it is still the notification that brought it, not the feed's periodic bound.
    const newest = async () => ((await (await fetch(publicUrl(""))).json()) as { articles: Array<{ slug: string }> }).articles[0]?.slug;
    let slug = await newest();
    for (let waited = 0; SANDBOX_DATABASE === "postgres" && slug !== "from-another-process" && waited < 2_000; waited += 20) {
      await Bun.sleep(20);
      slug = await newest();
    }
    expect(slug).toBe("from-another-process");
  });
});

describe("a small site on another origin", () => {
  test("lists the articles and renders one with fetch, with nothing but the site key", async () => {
    // The README's snippet, on a page served from another loopback origin.
    const page = `<!DOCTYPE html><html><body><ul id="list"></ul><article id="post"></article><script type="module">
      const base = ${JSON.stringify(server.url)};
      const key = ${JSON.stringify(siteKeyA)};
      const { articles } = await (await fetch(\`\${base}/api/public/articles?key=\${key}\`)).json();
      document.querySelector("#list").innerHTML = articles.map((a) => \`<li>\${a.slug}</li>\`).join("");
      const res = await fetch(\`\${base}/api/public/articles/\${encodeURIComponent(articles.find((a) => a.slug === "e2e-article").slug)}?key=\${key}\`);
      const { article } = await res.json();
      const post = document.querySelector("#post");
      const h1 = document.createElement("h1");
      h1.textContent = article.title;
      post.append(h1);
      post.insertAdjacentHTML("beforeend", article.html);
      document.body.dataset.done = "yes";
    </script></body></html>`;
    const site = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch: () => new Response(page, { headers: { "content-type": "text/html" } }),
    });
    const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: ["--no-sandbox", "--disable-gpu"] });
    try {
      const tab = await browser.newPage();
      const dialogs: string[] = [];
      tab.on("dialog", (d) => {
        dialogs.push(d.message());
        void d.dismiss();
      });
      await tab.goto(`http://127.0.0.1:${site.port}/`);
      await tab.waitForSelector("body[data-done=yes]", { timeout: 10_000 });
      const slugs = await tab.$$eval("#list li", (items) => items.map((li) => li.textContent));
      expect(slugs).toContain("e2e-article");
      expect(await tab.$eval("#post h1", (h) => h.textContent)).toBe("E2E article");
      expect(await tab.$eval("#post", (p) => p.querySelectorAll("h1").length)).toBe(1);
      expect(await tab.$eval("#post p", (p) => p.textContent)).toBe("Hello  world.");
      expect(dialogs).toEqual([]);
    } finally {
      await browser.close();
      site.stop(true);
    }
  }, 60_000);
});

describe("stopping while a tool call waits on the writer model", () => {
  test("SIGTERM lets a call in flight finish and answer, then exits 0", async () => {
    const slow = startFakeOpenAI({ latencyMs: 1_500, fallback: answer("---\ntitle: Slow but sure\n---\nDone.") });
    const own = await writerSandbox(slow);
    try {
      const ownSeed = await own.withDb(seedToolServerDb);
      const running = await own.serve({ timeoutMs: 60_000 });
      const client = await connect(running.url, ownSeed.a.key);
      const pending = call(client, "generate_article", { prompt_id: ownSeed.a.ids.promptId });
      while (slow.requests.length === 0) await Bun.sleep(20);
      expect(await running.stop("SIGTERM")).toBe(0);
      expect((await pending).data.article.title).toBe("Slow but sure");
      expect(running.logs()).not.toContain("shutdown grace period");
      await client.close().catch(() => undefined);
    } finally {
      own.cleanup();
      await slow.stop();
    }
  }, 60_000);

  // The grace period is 30 s unless configured (test/config/config.test.ts); waiting out 2 s proves
  // the same behaviour.
  test("SIGTERM waits for the call for the configured grace period, then closes it and exits 0", async () => {
    const graceMs = 2_000;
    const hung = startFakeOpenAI({ script: () => ({ kind: "hang" }) });
    const own = await writerSandbox(hung, "timeout_ms = 300000\n");
    try {
      const ownSeed = await own.withDb(seedToolServerDb);
      const running = await own.serve({ timeoutMs: 60_000, env: { SPYGLASS_SHUTDOWN_GRACE_MS: String(graceMs) } });
      const client = await connect(running.url, ownSeed.a.key);
      const pending = call(client, "generate_article", { prompt_id: ownSeed.a.ids.promptId }).then(
        () => "answered",
        () => "cut",
      );
      while (hung.requests.length === 0) await Bun.sleep(20);
      const signalled = performance.now();
      const code = await running.stop("SIGTERM");
      const seconds = (performance.now() - signalled) / 1000;
      expect(code).toBe(0);
      expect(seconds).toBeGreaterThan(graceMs / 1000 - 0.1);
      expect(await pending).toBe("cut");
      const logs = running.logs();
      expect(logs).toContain("requests still in flight after the shutdown grace period");
      expect(logs).toContain(`"grace_ms":${graceMs}`);
      expect(logs).toContain('"msg":"stopped"');
      await client.close().catch(() => undefined);
    } finally {
      own.cleanup();
      await hung.stop();
    }
  }, 60_000);

  test("a second signal during the grace period stops it at once, exit 130, and the log says why", async () => {
    const hung = startFakeOpenAI({ script: () => ({ kind: "hang" }) });
    const own = await writerSandbox(hung, "timeout_ms = 300000\n");
    try {
      const ownSeed = await own.withDb(seedToolServerDb);
      const running = await own.serve({ timeoutMs: 60_000 });
      const client = await connect(running.url, ownSeed.a.key);
      const pending = call(client, "generate_article", { prompt_id: ownSeed.a.ids.promptId }).catch(() => "cut");
      while (hung.requests.length === 0) await Bun.sleep(20);
      running.proc.kill("SIGTERM");
      while (!running.logs().includes('"msg":"shutting down"')) await Bun.sleep(20);
      // Its 30 s of grace are not waited out: the second Ctrl-C ends it, said in the log (it ended at "shutting down").
      expect(await running.stop("SIGINT")).toBe(130);
      expect(running.logs().match(/"msg":"shutting down"/g)).toHaveLength(1);
      expect(running.logs()).toContain("stopped at once by a second signal: requests still in flight were cut off");
      expect(await pending).toBe("cut");
      await client.close().catch(() => undefined);
    } finally {
      own.cleanup();
      await hung.stop();
    }
  }, 60_000);
});

// The four engine APIs against stand-ins speaking each provider's documented wire format: the
// queries the assistant searched, the sources it retrieved and the ones it cited (with positions),
// token usage, and failures (provider error, timeout, 429 Retry-After, a wrong key).
import { afterEach, describe, expect, test } from "bun:test";
import { createEngineClient } from "../../src/llm/client";
import { buildOpenAIRequest } from "../../src/llm/openai";
import { type ClientOptions, type EngineApi, type EngineConfig } from "../../src/llm/types";
import {
  answer,
  empty,
  type FakeProvider,
  hang,
  httpError,
  rateLimited,
  raw,
  refusal,
  startFakeGemini,
  startFakeOpenAI,
  startFakeProvider,
  startFakeResponses,
} from "../support/fake-providers";

const KEY = "sk-test-web-9876543210SECRETKEY";
const running: FakeProvider[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((fake) => fake.stop()));
});
function track(fake: FakeProvider): FakeProvider {
  running.push(fake);
  return fake;
}
function engine(fake: FakeProvider, api: EngineApi, extra: Partial<EngineConfig> = {}): EngineConfig {
  return { id: api, label: api, api, base_url: fake.url, model: "test-model", api_key_env: "FAKE_KEY", web_search: true, ...extra };
}
function options(): ClientOptions & { waits: number[] } {
  const waits: number[] = [];
  return { waits, env: { FAKE_KEY: KEY }, sleep: async (ms) => void waits.push(ms), random: () => 0.5 };
}

const TEXT = "For small teams, Acme CRM is the usual pick. Zeta Sales is cheaper.";
const SCRIPTED = answer(TEXT, {
  queries: ["best crm for small teams", "acme crm vs zeta sales"],
  citations: [
    { url: "https://acme.com/crm", title: "Acme CRM", quote: "Acme CRM is the usual pick." },
    { url: "https://reviews.example.org/zeta", title: "Zeta review", quote: "Zeta Sales is cheaper." },
  ],
  searchResults: [
    { url: "https://acme.com/crm", title: "Acme CRM" },
    { url: "https://reviews.example.org/zeta", title: "Zeta review" },
    { url: "https://blog.other.net/crm-list", title: "Ten CRMs" },
  ],
});
/** Gemini's chunks carry the site's host name as their title; the script leaves titles to the stand-in. */
const UNTITLED = answer(TEXT, {
  queries: ["best crm for small teams", "acme crm vs zeta sales"],
  citations: [
    { url: "https://acme.com/crm", quote: "Acme CRM is the usual pick." },
    { url: "https://reviews.example.org/zeta", quote: "Zeta Sales is cheaper." },
  ],
  searchResults: ["https://acme.com/crm", "https://reviews.example.org/zeta", "https://www.blog.other.net/crm-list"],
});
const ACME = { start: TEXT.indexOf("Acme CRM is"), end: TEXT.indexOf(" Zeta") };
const ZETA = { start: TEXT.indexOf("Zeta Sales"), end: TEXT.length };

describe("OpenAI Responses API with web_search", () => {
  test("queries from web_search_call actions, sources from action.sources, url_citation annotations with their offsets", async () => {
    const fake = track(startFakeResponses({ apiKey: KEY, model: "gpt-served", script: { q: SCRIPTED } }));
    const result = await createEngineClient(engine(fake, "openai-responses"), options()).ask("q");
    expect(result).toMatchObject({ status: "ok", text: TEXT, model: "gpt-served", tokens_in: 1, tokens_out: 13, attempts: 1 });
    expect(result.queries).toEqual(["best crm for small teams", "acme crm vs zeta sales"]);
    expect(result.citations).toEqual(["https://acme.com/crm", "https://reviews.example.org/zeta"]);
    expect(result.cited).toEqual([
      { url: "https://acme.com/crm", title: "Acme CRM", ...ACME },
      { url: "https://reviews.example.org/zeta", title: "Zeta review", ...ZETA },
    ]);
    expect(result.retrieved.map((s) => s.url)).toEqual([
      "https://acme.com/crm",
      "https://reviews.example.org/zeta",
      "https://blog.other.net/crm-list",
    ]);
    const request = fake.requests[0]!;
    expect(request.path).toBe("/v1/responses");
    expect(request.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(request.body).toMatchObject({
      model: "test-model",
      input: [{ role: "user", content: "q" }],
      tools: [{ type: "web_search" }],
      include: ["web_search_call.action.sources"],
    });
  });

  test("web_search = false sends no tool; a refusal part is a refusal; no output text is empty", async () => {
    const fake = track(startFakeResponses({ script: { a: refusal("I can't help with that."), b: empty() } }));
    const client = createEngineClient(engine(fake, "openai-responses", { web_search: false }), options());
    expect(await client.ask("a")).toMatchObject({ status: "refusal", text: "I can't help with that." });
    expect((await client.ask("b")).status).toBe("empty");
    expect((fake.requests[0]!.body as Record<string, unknown>).tools).toBeUndefined();
  });
});

describe("Anthropic Messages with the web search tool", () => {
  test("queries from server_tool_use, results from web_search_tool_result, citations on the text blocks they support", async () => {
    const fake = track(startFakeProvider("anthropic", { apiKey: KEY, script: { q: SCRIPTED } }));
    const result = await createEngineClient(engine(fake, "anthropic"), options()).ask("q");
    expect(result).toMatchObject({ status: "ok", text: TEXT, tokens_in: 1, tokens_out: 13 });
    expect(result.queries).toEqual(["best crm for small teams", "acme crm vs zeta sales"]);
    expect(result.cited).toEqual([
      { url: "https://acme.com/crm", title: "Acme CRM", ...ACME },
      { url: "https://reviews.example.org/zeta", title: "Zeta review", ...ZETA },
    ]);
    expect(result.retrieved).toEqual([
      { url: "https://acme.com/crm", title: "Acme CRM", start: null, end: null },
      { url: "https://reviews.example.org/zeta", title: "Zeta review", start: null, end: null },
      { url: "https://blog.other.net/crm-list", title: "Ten CRMs", start: null, end: null },
    ]);
    expect(fake.requests[0]!.body).toMatchObject({ tools: [{ type: "web_search_20250305", name: "web_search" }] });
  });
});

/** A Gemini reply "Acme." grounded on one chunk: a redirect at `uri` titled acme.com. */
function geminiCitingRedirect(uri: string) {
  return {
    candidates: [
      {
        content: { role: "model", parts: [{ text: "Acme." }] },
        finishReason: "STOP",
        groundingMetadata: {
          webSearchQueries: ["acme"],
          groundingChunks: [{ web: { uri, title: "acme.com" } }],
          groundingSupports: [{ segment: { startIndex: 0, endIndex: 5, text: "Acme." }, groundingChunkIndices: [0] }],
        },
      },
    ],
    usageMetadata: { promptTokenCount: 1, candidatesTokenCount: 1 },
  };
}

describe("Gemini generateContent with Google Search grounding", () => {
  test("webSearchQueries, grounding chunks as retrieved sources, supports as cited passages; redirects resolved by their domain title", async () => {
    const fake = track(startFakeGemini({ apiKey: KEY, model: "gemini-served", script: { q: UNTITLED } }));
    const result = await createEngineClient(engine(fake, "gemini", { model: "gemini-2.5-flash" }), options()).ask("q");
    expect(result).toMatchObject({ status: "ok", text: TEXT, model: "gemini-served", tokens_in: 1, tokens_out: 13 });
    expect(result.queries).toEqual(["best crm for small teams", "acme crm vs zeta sales"]);
    // The stand-in wraps every URI in a vertexaisearch grounding redirect whose title is the host name,
    // as Gemini does: the citation is the site, never vertexaisearch.cloud.google.com.
    expect(result.citations).toEqual(["https://acme.com", "https://reviews.example.org"]);
    expect(result.cited).toEqual([
      { url: "https://acme.com", title: "acme.com", ...ACME },
      { url: "https://reviews.example.org", title: "reviews.example.org", ...ZETA },
    ]);
    expect(result.retrieved.map((s) => s.url)).toEqual(["https://acme.com", "https://reviews.example.org", "https://blog.other.net"]);
    expect(result.retrieved.map((s) => s.title)).toEqual(["acme.com", "reviews.example.org", "blog.other.net"]);
    const request = fake.requests[0]!;
    expect(request.path).toBe("/v1beta/models/gemini-2.5-flash:generateContent");
    expect(request.headers["x-goog-api-key"]).toBe(KEY);
    expect(request.body).toMatchObject({ contents: [{ role: "user", parts: [{ text: "q" }] }], tools: [{ google_search: {} }] });
  });

  test("a redirect whose title is not a host name is kept with its title and never counted as a citation domain", async () => {
    const text = "Acmé CRM wins — for now.";
    const fake = track(
      startFakeGemini({
        script: { q: answer(text, { citations: [{ url: "https://acme.com/x", title: "Acme's CRM review", quote: "for now." }] }) },
      }),
    );
    const result = await createEngineClient(engine(fake, "gemini"), options()).ask("q");
    expect(result.citations).toEqual([]);
    expect(result.cited).toHaveLength(1);
    expect(result.cited[0]!.url).toStartWith("https://vertexaisearch.cloud.google.com/grounding-api-redirect/");
    // Byte offsets (the é and the dash are multi-byte) come back as string offsets.
    expect(result.cited[0]).toMatchObject({ title: "Acme's CRM review", start: text.indexOf("for now."), end: text.length });
  });

  test("follow_redirects asks each redirect where it points (served on loopback by the stand-in) and keeps the exact page", async () => {
    const fake = track(startFakeGemini({ groundingRedirects: "loopback", script: { q: UNTITLED } }));
    const fetched: string[] = [];
    const opts = {
      ...options(),
      fetch: (url: string, init: RequestInit) => {
        fetched.push(url);
        return fetch(url, init);
      },
    };
    const result = await createEngineClient(engine(fake, "gemini", { follow_redirects: true }), opts).ask("q");
    expect(result.citations).toEqual(["https://acme.com/crm", "https://reviews.example.org/zeta"]);
    expect(result.cited.map((c) => [c.url, c.start, c.end])).toEqual([
      ["https://acme.com/crm", ACME.start, ACME.end],
      ["https://reviews.example.org/zeta", ZETA.start, ZETA.end],
    ]);
    expect(result.retrieved.map((r) => r.url)).toEqual([
      "https://acme.com/crm",
      "https://reviews.example.org/zeta",
      "https://www.blog.other.net/crm-list",
    ]);
    // One GET per redirect, none followed further: the pages themselves are never fetched.
    expect(fake.redirectsFollowed).toHaveLength(3);
    expect(fetched.every((url) => url.startsWith("http://127.0.0.1:"))).toBe(true);
    expect(fetched).toHaveLength(4);
  });

  test("without follow_redirects no redirect is followed; one that cannot be followed falls back to the site its title names", async () => {
    const plain = track(startFakeGemini({ groundingRedirects: "loopback", script: { q: UNTITLED } }));
    const result = await createEngineClient(engine(plain, "gemini"), options()).ask("q");
    expect(result.citations).toEqual(["https://acme.com", "https://reviews.example.org"]);
    expect(plain.redirectsFollowed).toEqual([]);

    // Nothing listens on port 9 (and it is not the engine's origin): the redirect is not followed, the title stands.
    const body = geminiCitingRedirect("http://127.0.0.1:9/grounding-api-redirect/x");
    const broken = track(startFakeGemini({ script: { q: raw(body) } }));
    const fallback = await createEngineClient(engine(broken, "gemini", { follow_redirects: true }), options()).ask("q");
    expect(fallback).toMatchObject({ status: "ok", citations: ["https://acme.com"], queries: ["acme"] });
  });

  test("follow_redirects asks only Google's redirect host and the engine's own origin, never another address the reply names", async () => {
    // A reply naming a "redirect" on another address (here another loopback port; in a hostile
    // reply, the internal network): the server must not fetch it (a review saw it do so).
    const internal: string[] = [];
    const listener = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch: (request) => {
        internal.push(new URL(request.url).pathname);
        return new Response(null, { status: 302, headers: { location: "http://internal-only.corp.example/secret" } });
      },
    });
    try {
      const body = geminiCitingRedirect(`http://127.0.0.1:${listener.port}/grounding-api-redirect/admin`);
      const fake = track(startFakeGemini({ script: { q: raw(body) } }));
      const result = await createEngineClient(engine(fake, "gemini", { follow_redirects: true }), options()).ask("q");
      expect(internal).toEqual([]);
      expect(result).toMatchObject({ status: "ok", citations: ["https://acme.com"] });
      expect(JSON.stringify(result)).not.toContain("internal-only");
    } finally {
      listener.stop(true);
    }
  });

  test("a blocked prompt is a refusal; no parts is empty", async () => {
    const fake = track(startFakeGemini({ script: { a: refusal(), b: empty() } }));
    const client = createEngineClient(engine(fake, "gemini"), options());
    expect((await client.ask("a")).status).toBe("refusal");
    expect((await client.ask("b")).status).toBe("empty");
  });
});

describe("Perplexity (chat completions)", () => {
  test("citations are the cited sources, search_results the retrieved ones with titles", async () => {
    const fake = track(startFakeOpenAI({ citationStyle: "perplexity", script: { q: SCRIPTED } }));
    const result = await createEngineClient(engine(fake, "openai", { web_search: false }), options()).ask("q");
    expect(result.citations).toEqual(["https://acme.com/crm", "https://reviews.example.org/zeta"]);
    expect(result.cited.map((s) => [s.url, s.title])).toEqual([
      ["https://acme.com/crm", "Acme CRM"],
      ["https://reviews.example.org/zeta", "Zeta review"],
    ]);
    expect(result.retrieved.map((s) => s.url)).toEqual([
      "https://acme.com/crm",
      "https://reviews.example.org/zeta",
      "https://blog.other.net/crm-list",
    ]);
    expect(result.queries).toEqual([]);
  });
});

describe("a prompt's country is the web search's location", () => {
  test("each API that takes one gets it in its own shape; none without a country, and none for Gemini's grounding", async () => {
    const body = async (api: EngineApi, country: string | null) => {
      const fake = track(startFakeProvider(api, { script: { q: answer("Fine.") } }));
      await createEngineClient(engine(fake, api), options()).ask("q", undefined, { country });
      return fake.requests[0]!.body as Record<string, unknown>;
    };
    expect((await body("openai-responses", "DE")).tools).toEqual([
      { type: "web_search", user_location: { type: "approximate", country: "DE" } },
    ]);
    expect((await body("openai-responses", null)).tools).toEqual([{ type: "web_search" }]);
    expect((await body("anthropic", "JP")).tools).toEqual([
      { type: "web_search_20250305", name: "web_search", max_uses: 5, user_location: { type: "approximate", country: "JP" } },
    ]);
    expect((await body("openai", "BR")).web_search_options).toEqual({
      user_location: { type: "approximate", approximate: { country: "BR" } },
    });
    expect((await body("openai", null)).web_search_options).toEqual({});
    expect((await body("gemini", "DE")).tools).toEqual([{ google_search: {} }]);
  });

  test("Perplexity's API (by its host) takes the country flat, as its own docs show", () => {
    const request = buildOpenAIRequest(
      { api: "openai", base_url: "https://api.perplexity.ai", model: "sonar", web_search: true },
      [{ role: "user", content: "q" }],
      "key",
      { country: "DE" },
    );
    expect(JSON.parse(String(request.init.body)).web_search_options).toEqual({ user_location: { country: "DE" } });
  });
});

const APIS: EngineApi[] = ["openai", "openai-responses", "anthropic", "gemini"];

describe.each(APIS)("failures on %s", (api) => {
  test("a provider error keeps its status and message, without retrying a 400", async () => {
    const fake = track(startFakeProvider(api, { script: { q: httpError(400, { message: "model not found" }) } }));
    const result = await createEngineClient(engine(fake, api), options()).ask("q");
    expect(result).toMatchObject({ status: "error", error: "HTTP 400: model not found", attempts: 1, cited: [], queries: [] });
  });

  test("a 500 is retried with backoff, then the answer comes", async () => {
    const fake = track(startFakeProvider(api, { script: { q: [httpError(500), answer("Back.")] } }));
    const opts = options();
    const result = await createEngineClient(engine(fake, api), opts).ask("q");
    expect(result).toMatchObject({ status: "ok", text: "Back.", attempts: 2 });
    expect(opts.waits).toEqual([250]);
  });

  test("a 429 with Retry-After waits what the provider asked, then succeeds", async () => {
    const fake = track(startFakeProvider(api, { script: { q: [rateLimited("7"), answer("Fine.")] } }));
    const opts = options();
    const result = await createEngineClient(engine(fake, api), opts).ask("q");
    expect(result).toMatchObject({ status: "ok", attempts: 2 });
    expect(opts.waits).toEqual([7000]);
    expect(fake.requests).toHaveLength(2);
  });

  test("a hanging provider times out and ends as a timeout error", async () => {
    const fake = track(startFakeProvider(api, { script: { q: hang() } }));
    const result = await createEngineClient(engine(fake, api, { timeout_ms: 100, max_retries: 1 }), options()).ask("q");
    expect(result).toMatchObject({ status: "error", error: "timeout after 100 ms", attempts: 2 });
  });

  test("a wrong key is a 4xx error whose text never holds the key", async () => {
    const fake = track(startFakeProvider(api, { apiKey: "the-right-key-0000000000" }));
    const result = await createEngineClient(engine(fake, api), options()).ask("hello");
    expect(result.status).toBe("error");
    expect(result.error).toMatch(/^HTTP 4\d\d/);
    expect(JSON.stringify(result)).not.toContain(KEY);
    expect(JSON.stringify(result)).not.toContain(KEY.slice(0, 8));
    expect(JSON.stringify(result)).not.toContain(KEY.slice(-8));
  });
});

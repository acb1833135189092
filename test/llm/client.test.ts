import { afterEach, describe, expect, test } from "bun:test";
import { complete, createEngineClient, MAX_REPLY_BYTES, redactKey } from "../../src/llm/client";
import { type ClientOptions, type EngineConfig } from "../../src/llm/types";
import {
  answer,
  empty,
  type FakeProvider,
  hang,
  httpError,
  rateLimited,
  raw,
  refusal,
  startFakeAnthropic,
  startFakeGemini,
  startFakeOpenAI,
  startFakeResponses,
} from "../support/fake-providers";

const KEY = "sk-test-0123456789abcdefSECRET";
const running: FakeProvider[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((fake) => fake.stop()));
});

function track(fake: FakeProvider): FakeProvider {
  running.push(fake);
  return fake;
}

function engine(fake: FakeProvider, api: "openai" | "anthropic", extra: Partial<EngineConfig> = {}): EngineConfig {
  return { id: api, label: api, api, base_url: fake.url, model: "test-model", api_key_env: "FAKE_KEY", ...extra };
}

/** Records the waits instead of waiting, so retry tests run in milliseconds. */
function recordingOptions(): ClientOptions & { waits: number[] } {
  const waits: number[] = [];
  return {
    waits,
    env: { FAKE_KEY: KEY },
    sleep: async (ms: number) => {
      waits.push(ms);
    },
    random: () => 0.5,
  };
}

describe("OpenAI-compatible engines", () => {
  test("an answer with url_citation annotations comes back ok with its citations, tokens and model", async () => {
    const fake = track(
      startFakeOpenAI({
        apiKey: KEY,
        model: "gpt-served",
        script: { "best crm?": answer("Acme CRM is a solid pick.", { citations: ["https://acme.com/crm", "https://review.io/x"] }) },
      }),
    );
    const result = await createEngineClient(engine(fake, "openai"), recordingOptions()).ask("best crm?");
    expect(result).toMatchObject({
      status: "ok",
      text: "Acme CRM is a solid pick.",
      citations: ["https://acme.com/crm", "https://review.io/x"],
      model: "gpt-served",
      tokens_in: 2,
      tokens_out: 6,
      error: null,
      attempts: 1,
    });
    expect(result.latency_ms).toBeGreaterThanOrEqual(0);
    const request = fake.requests[0]!;
    expect(request.path).toBe("/v1/chat/completions");
    expect(request.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(request.body).toMatchObject({ model: "test-model", messages: [{ role: "user", content: "best crm?" }] });
  });

  test("Perplexity's top-level citations and search_results are read and deduplicated", async () => {
    const fake = track(
      startFakeOpenAI({
        citationStyle: "perplexity",
        script: { q: answer("Try Acme [1].", { citations: ["https://acme.com", "https://b.org/p"] }) },
      }),
    );
    const result = await createEngineClient(engine(fake, "openai"), recordingOptions()).ask("q");
    expect(result.status).toBe("ok");
    expect(result.citations).toEqual(["https://acme.com", "https://b.org/p"]);
  });

  test("the key never appears in the result, even when the provider echoes part of a wrong key", async () => {
    const fake = track(startFakeOpenAI({ apiKey: "sk-the-right-key-000000" }));
    const result = await createEngineClient(engine(fake, "openai"), recordingOptions()).ask("hello");
    expect(result.status).toBe("error");
    expect(result.error).toStartWith("HTTP 401");
    expect(result.attempts).toBe(1);
    expect(JSON.stringify(result)).not.toContain(KEY);
    expect(JSON.stringify(result)).not.toContain(KEY.slice(0, 8));
  });

  test("redaction hides each run of the key whole, leaving no piece of it beside the mark", () => {
    // A provider's echo of a suffix: the first eight characters of it used to be hidden, the rest kept.
    expect(redactKey("key: 56789abcdefSECRET.", KEY)).toBe("key: [redacted].");
    expect(redactKey(`Bearer ${KEY} and ${KEY.slice(0, 12)}…${KEY.slice(-9)}`, KEY)).toBe("Bearer [redacted] and [redacted]…[redacted]");
    // Runs shorter than eight characters are everyday text, not the key.
    expect(redactKey("sk-test is not a key; 0123456 neither", KEY)).toBe("sk-test is not a key; 0123456 neither");
    expect(redactKey("short", "abc")).toBe("short");
    expect(redactKey("an abc here", "abc")).toBe("an [redacted] here");
    // A short key only where it stands alone, never inside a word.
    expect(redactKey("an example, x-ray and key x.", "x")).toBe("an example, x-ray and key [redacted].");
  });

  test('an answer is stored as given when the key is a short placeholder (a local server\'s "ollama", "x")', async () => {
    const fake = track(startFakeOpenAI({ script: () => answer("Ollama is excellent: run ollama pull x, then xn--mller-kchen-thbg.de.") }));
    const result = await createEngineClient(engine(fake, "openai"), { env: { FAKE_KEY: "x" } }).ask("q");
    expect(result).toMatchObject({ status: "ok", text: "Ollama is excellent: run ollama pull x, then xn--mller-kchen-thbg.de." });
    const ollama = await createEngineClient(engine(fake, "openai"), { env: { FAKE_KEY: "ollama" } }).ask("q");
    expect(ollama.text).toBe("Ollama is excellent: run ollama pull x, then xn--mller-kchen-thbg.de.");
    // A longer placeholder without a digit (llama.cpp's) hides itself whole, not the words it holds.
    const placeholder = track(startFakeOpenAI({ script: () => answer("No subscription is required; sk-no-key-required works.") }));
    const llama = await createEngineClient(engine(placeholder, "openai"), { env: { FAKE_KEY: "sk-no-key-required" } }).ask("q");
    expect(llama.text).toBe("No subscription is required; [redacted] works.");
  });

  test("an answer that echoes the engine's key is stored without it", async () => {
    const fake = track(startFakeOpenAI({ script: () => answer(`Your request used ${KEY}; also ${KEY.slice(0, 10)}. Acme is fine.`) }));
    const result = await createEngineClient(engine(fake, "openai"), recordingOptions()).ask("q");
    expect(result).toMatchObject({ status: "ok", text: "Your request used [redacted]; also [redacted]. Acme is fine." });
  });

  test("a key echoed in a cited or retrieved source, its title or a search query is stored without it too", async () => {
    // The privacy review: the text was redacted, and the same key in the structured fields went to
    // the database, the CSV exports and AI clients.
    for (const [start, api] of [
      [startFakeResponses, "openai-responses"],
      [startFakeGemini, "gemini"],
      [startFakeOpenAI, "openai"],
    ] as const) {
      const fake = track(
        start({
          script: () =>
            answer("Acme is fine.", {
              citations: [{ url: `https://cited.example/y?token=${KEY}`, title: `Cited ${KEY}` }],
              searchResults: [{ url: `https://found.example/?k=${KEY}`, title: `Found ${KEY}` }],
              queries: [`best crm ${KEY}`],
            }),
        }),
      );
      const result = await createEngineClient(
        { id: api, label: api, api, base_url: fake.url, model: "test-model", api_key_env: "FAKE_KEY" },
        recordingOptions(),
      ).ask("q");
      expect(result.status).toBe("ok");
      expect(result.cited.length).toBeGreaterThan(0);
      expect(JSON.stringify(result)).not.toContain(KEY.slice(8, 20));
      expect(JSON.stringify(result)).toContain("[redacted]");
    }
  });

  test("a missing key variable is an error before any request is sent", async () => {
    const fake = track(startFakeOpenAI());
    const result = await createEngineClient(engine(fake, "openai"), { env: {} }).ask("hello");
    expect(result).toMatchObject({ status: "error", attempts: 0, error: "environment variable FAKE_KEY is not set" });
    expect(fake.requests).toHaveLength(0);
  });

  test("an engine without api_key_env (e.g. Ollama) sends no Authorization header", async () => {
    const fake = track(startFakeOpenAI());
    const config = { ...engine(fake, "openai"), api_key_env: undefined };
    const result = await createEngineClient(config, { env: {} }).ask("hello");
    expect(result.status).toBe("ok");
    expect(fake.requests[0]!.headers.authorization).toBeUndefined();
  });

  test("a 429 with Retry-After in seconds waits that long, then succeeds", async () => {
    const fake = track(startFakeOpenAI({ script: { q: [rateLimited("7"), answer("Fine.")] } }));
    const opts = recordingOptions();
    const result = await createEngineClient(engine(fake, "openai"), opts).ask("q");
    expect(result).toMatchObject({ status: "ok", text: "Fine.", attempts: 2 });
    expect(opts.waits).toEqual([7000]);
  });

  test("a rate limit holds the engine's next requests too, not only the one that met it", async () => {
    // The first prompt meets a 429 (no retries left) asking for 7 s; the next prompt, another task,
    // waits for the same pause before it is sent, instead of hitting the limit at once.
    const fake = track(startFakeOpenAI({ script: { first: rateLimited("7"), second: answer("Fine.") } }));
    const opts = { ...recordingOptions(), now: () => 1_000_000 };
    const client = createEngineClient(engine(fake, "openai", { max_retries: 0, concurrency: 1 }), opts);
    expect((await client.ask("first")).status).toBe("error");
    expect(opts.waits).toEqual([]);
    expect(await client.ask("second")).toMatchObject({ status: "ok", text: "Fine." });
    expect(opts.waits).toEqual([7000]);
    expect(fake.requests).toHaveLength(2);
  });

  test("after 3 refusals of the key in a row, the engine's requests fail unsent for 5 minutes; then one is sent again", async () => {
    let clock = 1_000_000;
    const fake = track(startFakeOpenAI({ apiKey: "sk-the-right-one" }));
    const opts = { ...recordingOptions(), now: () => clock };
    const client = createEngineClient(engine(fake, "openai", { max_retries: 3, concurrency: 1 }), opts);
    const results = [];
    for (let i = 0; i < 6; i++) results.push(await client.ask(`prompt ${i}`));
    // 401 is not retried; after the third, nothing is sent, and each answer says why.
    expect(fake.requests).toHaveLength(3);
    expect(results.every((r) => r.status === "error")).toBe(true);
    expect(results[3]!.error).toStartWith("not sent: the provider refused the key on the last requests (HTTP 401");
    // It says until when (5 minutes after the third refusal, on the injected clock) and where the key is read from.
    expect(results[3]!.error).toEndWith(
      `); none is sent before ${new Date(1_000_000 + 5 * 60_000).toISOString().slice(11, 19)} UTC, when one tries the key again; check the key in ${engine(fake, "openai").api_key_env}`,
    );
    expect(results[3]!.attempts).toBe(0);
    clock += 5 * 60_000;
    // After the hold one request alone tries the key again: the others sent meanwhile fail unsent.
    const again = await Promise.all([client.ask("later"), client.ask("later too")]);
    expect(again.map((r) => r.error?.slice(0, 8))).toEqual(["HTTP 401", "not sent"]);
    // The probe was refused again: held anew.
    expect(again[1]!.error).toContain(`; none is sent before ${new Date(clock + 5 * 60_000).toISOString().slice(11, 19)} UTC`);
    expect(fake.requests).toHaveLength(4);
  });

  test("a reply that starts with a byte-order mark is read as JSON", async () => {
    const bom = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch: () =>
        new Response(`\uFEFF${JSON.stringify({ choices: [{ message: { content: "Acme is fine." } }] })}`, {
          headers: { "content-type": "application/json" },
        }),
    });
    try {
      const result = await createEngineClient(
        { id: "bom", label: "bom", api: "openai", model: "m", base_url: `http://127.0.0.1:${bom.port}/v1`, api_key_env: "FAKE_KEY" },
        recordingOptions(),
      ).ask("q");
      expect(result).toMatchObject({ status: "ok", text: "Acme is fine." });
    } finally {
      bom.stop(true);
    }
  });

  test("a Retry-After HTTP date is honoured relative to now", async () => {
    const now = Date.parse("2025-01-01T00:00:00Z");
    const fake = track(startFakeOpenAI({ script: { q: [rateLimited("Wed, 01 Jan 2025 00:00:03 GMT"), answer("ok")] } }));
    const opts = { ...recordingOptions(), now: () => now };
    const result = await createEngineClient(engine(fake, "openai"), opts).ask("q");
    expect(result.status).toBe("ok");
    expect(opts.waits).toEqual([3000]);
  });

  test("asked to wait longer than a minute, a request fails at once saying so, and the engine's next ones fail unsent until then (an hour at most)", async () => {
    let clock = Date.parse("2025-01-01T00:00:00Z");
    const fake = track(
      startFakeOpenAI({
        script: { q: [rateLimited("5400"), answer("ok")], r: [rateLimited("90"), answer("ok")] },
        fallback: answer("ok"),
      }),
    );
    const opts = { ...recordingOptions(), now: () => clock };
    const client = createEngineClient(engine(fake, "openai", { concurrency: 1 }), opts);
    const first = await client.ask("q");
    expect(first).toMatchObject({ status: "error", attempts: 1 });
    // 5,400 s asked: held for the longest hold, an hour.
    expect(first.error).toMatch(
      /^HTTP 429[^(]*\(the provider asked to wait 90 minutes, until 01:30:00 UTC\); a run does not wait that long: the engine is asked again from 01:00:00 UTC$/,
    );
    expect(opts.waits).toEqual([]);
    const unsent = await client.ask("another");
    expect(unsent).toMatchObject({ status: "error", attempts: 0 });
    expect(unsent.error).toMatch(
      /^not sent before 01:00:00 UTC: HTTP 429.* \(the provider asked to wait 90 minutes, until 01:30:00 UTC\)$/,
    );
    expect(fake.requests).toHaveLength(1);
    // From then on, asked again; a wait of 90 s, over a minute too, is not waited either.
    clock += 60 * 60_000;
    expect(await client.ask("q")).toMatchObject({ status: "ok" });
    expect((await client.ask("r")).error).toContain("(the provider asked to wait 90 seconds, until 01:01:30 UTC); a run does not wait");
    // A wait into another day names its date.
    const tomorrow = track(startFakeOpenAI({ script: { q: rateLimited("86400") } }));
    const later = await createEngineClient(engine(tomorrow, "openai"), opts).ask("q");
    expect(later.error).toContain(
      "(the provider asked to wait 24 hours, until 2025-01-02 01:00:00 UTC); a run does not wait that long: the engine is asked again from 02:00:00 UTC",
    );
    expect(fake.requests).toHaveLength(3);
  });

  test("a 500 is retried with jittered exponential backoff, then succeeds", async () => {
    const fake = track(startFakeOpenAI({ script: { q: [httpError(500), httpError(503), answer("Back.")] } }));
    const opts = recordingOptions();
    const result = await createEngineClient(engine(fake, "openai"), opts).ask("q");
    expect(result).toMatchObject({ status: "ok", attempts: 3 });
    // random() = 0.5: half of 500 ms, then half of 1000 ms.
    expect(opts.waits).toEqual([250, 500]);
  });

  test("when retries run out the answer is an error that keeps the status and message", async () => {
    const fake = track(startFakeOpenAI({ script: { q: httpError(502, { message: "upstream exploded" }) } }));
    const opts = recordingOptions();
    const result = await createEngineClient(engine(fake, "openai", { max_retries: 2 }), opts).ask("q");
    expect(result).toMatchObject({ status: "error", error: "HTTP 502: upstream exploded", attempts: 3, text: "", citations: [] });
    expect(fake.requests).toHaveLength(3);
    expect(opts.waits).toHaveLength(2);
  });

  test("a 400 is not retried", async () => {
    const fake = track(startFakeOpenAI({ script: { q: httpError(400, { message: "bad model" }) } }));
    const result = await createEngineClient(engine(fake, "openai"), recordingOptions()).ask("q");
    expect(result).toMatchObject({ status: "error", error: "HTTP 400: bad model", attempts: 1 });
  });

  test("a hanging provider times out, is retried, and ends as a timeout error", async () => {
    const fake = track(startFakeOpenAI({ script: { q: hang() } }));
    const opts = recordingOptions();
    const result = await createEngineClient(engine(fake, "openai", { timeout_ms: 100, max_retries: 1 }), opts).ask("q");
    expect(result).toMatchObject({ status: "error", error: "timeout after 100 ms", attempts: 2 });
    expect(result.latency_ms).toBeGreaterThanOrEqual(90);
  });

  test("a refused connection is a retried network error", async () => {
    const fake = startFakeOpenAI();
    const config = engine(fake, "openai", { max_retries: 1 });
    await fake.stop();
    const result = await createEngineClient(config, recordingOptions()).ask("q");
    expect(result.status).toBe("error");
    // Named by the host it was sent to and the cause in words, not the runtime's own sentence.
    expect(result.error).toBe(
      `could not reach ${new URL(config.base_url).host} (the engine's base_url in the configuration file): the connection was refused (nothing listens there)`,
    );
    expect(result.attempts).toBe(2);
  });

  test("empty content is classified empty", async () => {
    const fake = track(startFakeOpenAI({ script: { q: empty(), w: answer("   \n ") } }));
    const client = createEngineClient(engine(fake, "openai"), recordingOptions());
    expect((await client.ask("q")).status).toBe("empty");
    expect((await client.ask("w")).status).toBe("empty");
  });

  test("message.refusal is a refusal, and so is a short 'I can't help with that' answer", async () => {
    const fake = track(
      startFakeOpenAI({
        script: { a: refusal("I can't assist with that."), b: answer("I'm sorry, but I can't help with that request.") },
      }),
    );
    const client = createEngineClient(engine(fake, "openai"), recordingOptions());
    expect(await client.ask("a")).toMatchObject({ status: "refusal", text: "I can't assist with that.", error: null });
    expect((await client.ask("b")).status).toBe("refusal");
  });

  test("a long answer that opens with a caveat is not a refusal", async () => {
    const text = `I can't help with picking one for you, but here are options: ${"Acme is good for teams. ".repeat(20)}`;
    const fake = track(startFakeOpenAI({ script: { q: answer(text) } }));
    expect((await createEngineClient(engine(fake, "openai"), recordingOptions()).ask("q")).status).toBe("ok");
  });

  test("a 200 that is not JSON is an error", async () => {
    const fake = track(startFakeOpenAI({ script: () => raw("<html>gateway</html>") }));
    const result = await createEngineClient(engine(fake, "openai"), recordingOptions()).ask("q");
    expect(result.status).toBe("error");
    expect(String(result.error)).toBe(
      "provider returned a body that is not JSON (content-type text/plain; a proxy's or gateway's page? check the engine's base_url)",
    );
  });

  test("a 200 without choices is an error that says so, not an empty answer; one carrying an error is tried again with its message", async () => {
    const fake = track(startFakeOpenAI({ script: () => raw({ unexpected: true }) }));
    const result = await createEngineClient(engine(fake, "openai"), recordingOptions()).ask("q");
    expect(result.status).toBe("error");
    expect(result.error).toBe(
      "the provider's reply has no \"choices\": it is not an answer of the openai API (check the engine's api and base_url)",
    );
    expect(fake.requests).toHaveLength(1);
    // Some gateways answer 200 {"error": {...}}: the provider's own words, after the retries.
    const gateway = track(startFakeOpenAI({ script: () => raw({ error: { message: "model overloaded, try later" } }) }));
    const overloaded = await createEngineClient(engine(gateway, "openai", { max_retries: 1 }), recordingOptions()).ask("q");
    expect(overloaded.status).toBe("error");
    expect(overloaded.error).toBe("HTTP 200 with an error: model overloaded, try later");
    expect(gateway.requests).toHaveLength(2);
  });

  test("a reply over 1 MiB is refused unread, declared or streamed", async () => {
    const big = "x".repeat(MAX_REPLY_BYTES + 1);
    const fake = track(startFakeOpenAI({ script: () => raw({ choices: [{ message: { content: big } }] }) }));
    const result = await createEngineClient(engine(fake, "openai"), recordingOptions()).ask("q");
    expect(result.status).toBe("error");
    expect(result.error).toBe("the provider's reply is over 1 MiB; it was not read");
    expect(result.text).toBe("");
    // Without a length (chunked), counted as it comes.
    const chunked = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch: () =>
        new Response(
          new ReadableStream({
            start(controller) {
              controller.enqueue(new TextEncoder().encode('{"choices":[{"message":{"content":"'));
              for (let i = 0; i < 20; i++) controller.enqueue(new TextEncoder().encode("y".repeat(64 * 1024)));
              controller.enqueue(new TextEncoder().encode('"}}]}'));
              controller.close();
            },
          }),
          { headers: { "content-type": "application/json" } },
        ),
    });
    try {
      const streamed = await createEngineClient(
        {
          id: "chunked",
          label: "chunked",
          api: "openai",
          model: "m",
          base_url: `http://127.0.0.1:${chunked.port}/v1`,
          api_key_env: "FAKE_KEY",
        },
        recordingOptions(),
      ).ask("q");
      expect(streamed.status).toBe("error");
      expect(streamed.error).toBe("the provider's reply is over 1 MiB; it was not read");
    } finally {
      chunked.stop(true);
    }
  });

  test("the concurrency limit bounds the requests in flight at the server", async () => {
    const fake = track(startFakeOpenAI({ latencyMs: 40 }));
    const client = createEngineClient(engine(fake, "openai", { concurrency: 3 }), recordingOptions());
    const results = await Promise.all(Array.from({ length: 12 }, (_, i) => client.ask(`prompt ${i}`)));
    expect(results.every((r) => r.status === "ok")).toBe(true);
    expect(fake.requests).toHaveLength(12);
    expect(fake.maxInFlight).toBe(3);
  });

  test("aborting the caller's signal stops a hanging request without retrying", async () => {
    const fake = track(startFakeOpenAI({ script: { q: hang() } }));
    const controller = new AbortController();
    const pending = createEngineClient(engine(fake, "openai"), recordingOptions()).ask("q", controller.signal);
    setTimeout(() => controller.abort(), 50);
    expect(await pending).toMatchObject({ status: "error", error: "aborted", attempts: 1 });
  });

  test("complete() sends the system and user messages and returns the text", async () => {
    const fake = track(startFakeOpenAI({ script: () => answer("# Draft") }));
    const result = await complete({ api: "openai", base_url: fake.url, model: "writer", temperature: 0.2, max_tokens: 500 }, [
      { role: "system", content: "You write articles." },
      { role: "user", content: "Write about Acme." },
    ]);
    expect(result).toMatchObject({ status: "ok", text: "# Draft" });
    expect(fake.requests[0]!.body).toMatchObject({
      model: "writer",
      temperature: 0.2,
      max_tokens: 500,
      messages: [
        { role: "system", content: "You write articles." },
        { role: "user", content: "Write about Acme." },
      ],
    });
  });
});

describe("Anthropic engines", () => {
  test("an answer with web search citations comes back ok; results read but not cited are left out", async () => {
    const fake = track(
      startFakeAnthropic({
        apiKey: KEY,
        script: {
          q: answer("Acme leads the market.", {
            citations: ["https://acme.com/about"],
            searchResults: ["https://acme.com/about", "https://unrelated.net"],
          }),
        },
      }),
    );
    const result = await createEngineClient(engine(fake, "anthropic"), recordingOptions()).ask("q");
    expect(result).toMatchObject({
      status: "ok",
      text: "Acme leads the market.",
      citations: ["https://acme.com/about"],
      tokens_in: 1,
      tokens_out: 4,
      attempts: 1,
    });
    const request = fake.requests[0]!;
    expect(request.path).toBe("/v1/messages");
    expect(request.headers["x-api-key"]).toBe(KEY);
    expect(request.headers["anthropic-version"]).toBe("2023-06-01");
    expect(request.headers.authorization).toBeUndefined();
    expect(request.body).toMatchObject({ model: "test-model", max_tokens: 2048, messages: [{ role: "user", content: "q" }] });
    expect(JSON.stringify(result)).not.toContain(KEY);
  });

  test("a base_url ending in /v1 is not doubled", async () => {
    const fake = track(startFakeAnthropic());
    const result = await createEngineClient(engine(fake, "anthropic", { base_url: `${fake.url}/v1/` }), recordingOptions()).ask("q");
    expect(result.status).toBe("ok");
  });

  test("system messages become the top-level system field", async () => {
    const fake = track(startFakeAnthropic());
    await complete({ api: "anthropic", base_url: fake.url, model: "claude-test" }, [
      { role: "system", content: "Be brief." },
      { role: "user", content: "Hi" },
    ]);
    expect(fake.requests[0]!.body).toMatchObject({ system: "Be brief.", messages: [{ role: "user", content: "Hi" }] });
  });

  test("stop_reason refusal is a refusal, empty content is empty", async () => {
    const fake = track(startFakeAnthropic({ script: { a: refusal(""), b: empty() } }));
    const client = createEngineClient(engine(fake, "anthropic"), recordingOptions());
    expect((await client.ask("a")).status).toBe("refusal");
    expect((await client.ask("b")).status).toBe("empty");
  });

  test("529 overloaded and 429 are retried, honouring Retry-After", async () => {
    const fake = track(startFakeAnthropic({ script: { q: [httpError(529), rateLimited("2"), answer("ok")] } }));
    const opts = recordingOptions();
    const result = await createEngineClient(engine(fake, "anthropic"), opts).ask("q");
    expect(result).toMatchObject({ status: "ok", attempts: 3 });
    expect(opts.waits).toEqual([250, 2000]);
  });

  test("a wrong key is a non-retried 401 error", async () => {
    const fake = track(startFakeAnthropic({ apiKey: "another-key" }));
    const result = await createEngineClient(engine(fake, "anthropic"), recordingOptions()).ask("q");
    expect(result).toMatchObject({ status: "error", error: "HTTP 401: invalid x-api-key", attempts: 1 });
  });

  test("the concurrency limit bounds in-flight requests", async () => {
    const fake = track(startFakeAnthropic({ latencyMs: 30 }));
    const client = createEngineClient(engine(fake, "anthropic", { concurrency: 2 }), recordingOptions());
    await Promise.all(Array.from({ length: 8 }, (_, i) => client.ask(`p${i}`)));
    expect(fake.maxInFlight).toBe(2);
  });
});

describe("a reply's charset", () => {
  test("a reply in a charset it declares (Latin-1) is read in it; one that is not UTF-8 and declares none is an error, not garbled text", async () => {
    const latin1 = Buffer.from(
      JSON.stringify({
        model: "m",
        choices: [{ index: 0, finish_reason: "stop", message: { role: "assistant", content: "Acme est très bien, café crème." } }],
      }),
      "latin1",
    );
    const fake = track(
      startFakeOpenAI({
        script: {
          declared: raw(latin1, { headers: { "content-type": "application/json; charset=iso-8859-1" } }),
          undeclared: raw(latin1, { headers: { "content-type": "application/json" } }),
          // UTF-8 labelled Latin-1 (a servlet's default): read as the UTF-8 it is.
          mislabelled: raw(Buffer.from(latin1.toString("latin1"), "utf8"), {
            headers: { "content-type": "application/json; charset=iso-8859-1" },
          }),
        },
      }),
    );
    const client = createEngineClient(engine(fake, "openai"), recordingOptions());
    expect(await client.ask("declared")).toMatchObject({ status: "ok", text: "Acme est très bien, café crème." });
    expect(await client.ask("mislabelled")).toMatchObject({ status: "ok", text: "Acme est très bien, café crème." });
    const undeclared = await client.ask("undeclared");
    expect([undeclared.status, undeclared.error]).toEqual([
      "error",
      "the provider's reply is not UTF-8 and names no other charset: its text could not be read",
    ]);
  });
});

describe("an answer the model did not finish", () => {
  const CUT = "The best CRM for a small business is, in short, one such as";
  const cases = [
    {
      api: "openai" as const,
      start: startFakeOpenAI,
      body: { model: "m", choices: [{ index: 0, finish_reason: "length", message: { role: "assistant", content: CUT } }] },
    },
    {
      api: "openai-responses" as const,
      start: startFakeResponses,
      body: {
        model: "m",
        status: "incomplete",
        incomplete_details: { reason: "max_output_tokens" },
        output: [{ type: "message", role: "assistant", content: [{ type: "output_text", text: CUT, annotations: [] }] }],
      },
    },
    {
      api: "anthropic" as const,
      start: startFakeAnthropic,
      body: { model: "m", stop_reason: "max_tokens", content: [{ type: "text", text: CUT }] },
    },
    {
      api: "gemini" as const,
      start: startFakeGemini,
      body: { modelVersion: "m", candidates: [{ finishReason: "MAX_TOKENS", content: { role: "model", parts: [{ text: CUT }] } }] },
    },
  ];

  test.each(cases)(
    "$api: cut at the output limit, it is an error that says so and keeps its text (never a valid 'not mentioned')",
    async ({ api, start, body }) => {
      const fake = track(start({ fallback: raw(body) }));
      const result = await createEngineClient(
        { id: api, label: api, api, base_url: fake.url, model: "m", api_key_env: "FAKE_KEY" },
        recordingOptions(),
      ).ask("q");
      expect(result.status).toBe("error");
      expect(result.text).toBe(CUT);
      expect(result.error).toContain("cut off at the model's output limit (max_tokens)");
      expect(result.attempts).toBe(1);
    },
  );

  test("Anthropic's pause during a long search is an error saying so; a refusal without a word keeps no text", async () => {
    const fake = track(
      startFakeAnthropic({
        script: {
          paused: raw({
            model: "m",
            stop_reason: "pause_turn",
            content: [{ type: "server_tool_use", name: "web_search", input: { query: "crm" } }],
          }),
          refused: raw({ model: "m", stop_reason: "refusal", content: [] }),
        },
      }),
    );
    const client = createEngineClient(engine(fake, "anthropic"), recordingOptions());
    const paused = await client.ask("paused");
    expect([paused.status, paused.error]).toEqual([
      "error",
      expect.stringContaining("paused the answer during its web search (pause_turn)"),
    ]);
    expect(await client.ask("refused")).toMatchObject({ status: "refusal", text: "" });
  });
});

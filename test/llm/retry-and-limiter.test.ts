import { describe, expect, test } from "bun:test";
import { createLimiter, LimiterAbortedError } from "../../src/llm/limiter";
import { looksLikeRefusal } from "../../src/llm/refusal";
import { BACKOFF_CAP_MS, backoffDelayMs, parseRetryAfter } from "../../src/llm/retry";

describe("parseRetryAfter", () => {
  const now = Date.parse("2025-06-01T12:00:00Z");
  test("reads seconds, HTTP dates and OpenAI's retry-after-ms", () => {
    expect(parseRetryAfter(new Headers({ "retry-after": "3" }), now)).toBe(3000);
    expect(parseRetryAfter(new Headers({ "retry-after": "Sun, 01 Jun 2025 12:00:10 GMT" }), now)).toBe(10_000);
    expect(parseRetryAfter(new Headers({ "retry-after-ms": "1500", "retry-after": "9" }), now)).toBe(1500);
  });
  test("a past date is zero, a far one is read as asked (the client decides what to do with it), nonsense is ignored", () => {
    expect(parseRetryAfter(new Headers({ "retry-after": "Sun, 01 Jun 2025 11:00:00 GMT" }), now)).toBe(0);
    expect(parseRetryAfter(new Headers({ "retry-after": "86400" }), now)).toBe(86_400_000);
    expect(parseRetryAfter(new Headers({ "retry-after": "soon" }), now)).toBeNull();
    expect(parseRetryAfter(new Headers(), now)).toBeNull();
  });
});

test("backoff is full jitter under an exponential ceiling", () => {
  expect(backoffDelayMs(0, () => 0.999)).toBe(499);
  expect(backoffDelayMs(3, () => 0.5)).toBe(2000);
  expect(backoffDelayMs(30, () => 0.999)).toBeLessThan(BACKOFF_CAP_MS);
  expect(backoffDelayMs(5, () => 0)).toBe(0);
});

describe("createLimiter", () => {
  test("never runs more than max tasks at once and runs them all", async () => {
    const limiter = createLimiter(2);
    let running = 0;
    let peak = 0;
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        limiter.run(async () => {
          running++;
          peak = Math.max(peak, running);
          await Bun.sleep(5);
          running--;
          return i;
        }),
      ),
    );
    expect(results).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(peak).toBe(2);
    expect(limiter.inFlight).toBe(0);
  });

  test("a waiting task whose signal aborts leaves the queue", async () => {
    const limiter = createLimiter(1);
    let release = (): void => {};
    const first = limiter.run(() => new Promise<void>((resolve) => (release = resolve)));
    const controller = new AbortController();
    const second = limiter.run(async () => "ran", controller.signal);
    expect(limiter.waiting).toBe(1);
    controller.abort();
    await expect(second).rejects.toBeInstanceOf(LimiterAbortedError);
    expect(limiter.waiting).toBe(0);
    release();
    await first;
    expect(await limiter.run(async () => "next")).toBe("next");
  });

  test("a failing task frees its slot", async () => {
    const limiter = createLimiter(1);
    await expect(limiter.run(async () => Promise.reject(new Error("boom")))).rejects.toThrow("boom");
    expect(await limiter.run(async () => 1)).toBe(1);
  });
});

describe("looksLikeRefusal", () => {
  test.each([
    "I'm sorry, but I can't help with that.",
    "Sorry, I cannot assist with this request.",
    "I can’t help with that.",
    "I must decline this request.",
    "I apologize, but I am unable to provide that information.",
  ])("%s is a refusal", (text) => expect(looksLikeRefusal(text)).toBe(true));

  test.each([
    "Sorry for the confusion earlier! The best CRM tools are Acme, Beta and Gamma.",
    "I can't say for sure, but Acme is popular.",
    "Acme is the top pick. I cannot recommend Beta for small teams.",
    "",
  ])("%s is not a refusal", (text) => expect(looksLikeRefusal(text)).toBe(false));
});

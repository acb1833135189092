import { afterEach, describe, expect, test } from "bun:test";
import { Elysia } from "elysia";
import fc from "fast-check";
import { observability } from "../../src/http/observability";
import { configureLog, log } from "../../src/log";
import { BUILD, VERSION } from "../../src/version";
import { type TestApp, testApp } from "../support/http";
import { captureLog } from "../support/log";

let t: TestApp;
afterEach(async () => {
  configureLog({ quiet: true });
  await t?.close();
});

describe("operational basics", () => {
  test("GET /healthz answers 200 with the version and a request id", async () => {
    t = await testApp();
    const res = await t.call("GET", "/healthz");
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ status: "ok", version: VERSION, build: BUILD });
    expect(res.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
  });

  test("an unknown route is a JSON 404 and invalid JSON a 400", async () => {
    t = await testApp();
    const missing = await t.call("GET", "/nope");
    expect(missing.status).toBe(404);
    expect(missing.json).toEqual({ error: "Not found", code: "not_found" });
    const cookie = await t.signIn("a@example.com");
    const bad = await t.call("POST", "/api/brands", { cookie, rawBody: "{" });
    expect(bad.status).toBe(400);
    expect(bad.json.code).toBe("invalid_json");
  });

  test("no answer of the app may be sniffed as another type: success, error and 404 alike", async () => {
    t = await testApp();
    const cookie = await t.signIn("a@example.com");
    const answers = [
      await t.call("GET", "/api/brands", { cookie }),
      await t.call("GET", "/api/brands"),
      await t.call("POST", "/api/brands", { cookie, rawBody: "{" }),
      await t.call("GET", "/api/nope"),
    ];
    expect(answers.map((r) => r.status)).toEqual([200, 401, 400, 404]);
    for (const res of answers) expect(res.headers.get("x-content-type-options")).toBe("nosniff");
  });

  test("an unexpected exception is a generic 500 with the request id, never a stack trace", async () => {
    configureLog({ quiet: false });
    const app = new Elysia().use(observability()).get("/boom", () => {
      throw new Error("SELECT secret FROM somewhere");
    });
    let body = "";
    let status = 0;
    let id = "";
    const logs = await captureLog(async () => {
      const res = await app.handle(new Request("http://localhost/boom"));
      status = res.status;
      id = res.headers.get("x-request-id") ?? "";
      body = await res.text();
    });
    expect(status).toBe(500);
    expect(JSON.parse(body)).toEqual({ error: `Something went wrong on our side (request ${id}).`, code: "internal" });
    expect(body).not.toContain("SELECT");
    expect(body).not.toContain("at ");
    // The details go to the log, under the same request id.
    expect(logs).toContain(id);
    expect(logs).toContain("SELECT secret");
  });

  test("access logs are JSON lines with method, path (no query), status and request id; no cookie or key", async () => {
    t = await testApp({ quiet: false });
    const logs = await captureLog(async () => {
      await t.call("GET", "/api/nothing-here?token=abc", {
        headers: { cookie: "spyglass_session=SECRETCOOKIE", authorization: "Bearer svc_live_SECRET" },
      });
    });
    const entry = logs
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l))
      .find((l) => l.msg === "request");
    expect(entry).toMatchObject({ level: "info", method: "GET", path: "/api/nothing-here", status: 404 });
    expect(entry.request_id).toMatch(/^[0-9a-f-]{36}$/);
    expect(logs).not.toContain("SECRETCOOKIE");
    expect(logs).not.toContain("svc_live_SECRET");
    expect(logs).not.toContain("token=abc");
  });
});

test("a health probe that is answered ok is logged at debug only, so that a probe every few seconds does not fill the log", async () => {
  t = await testApp({ quiet: false });
  const requests = (logs: string) =>
    logs
      .trim()
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l))
      .filter((l) => l.msg === "request");
  expect(requests(await captureLog(async () => void (await t.call("GET", "/healthz"))))).toEqual([]);
  configureLog({ level: "debug" });
  try {
    const debug = requests(await captureLog(async () => void (await t.call("GET", "/healthz"))));
    expect(debug).toEqual([expect.objectContaining({ level: "debug", path: "/healthz", status: 200 })]);
  } finally {
    configureLog({ level: "info" });
  }
});

describe("access-log lines", () => {
  test("are exactly the JSON that JSON.stringify writes, for any method, path, id and status", async () => {
    const samples = fc.sample(fc.string({ unit: "binary" }), 300);
    samples.push('x"y', "a\\b", "tab\there", "nul\u0000", "\ud800lone", "emoji😀", "\u2028", "/api/public/articles");
    const logs = await captureLog(async () => {
      for (const text of samples) log.request({ request_id: text, method: text, path: text, status: text, ms: 1.5 });
      log.request({ method: "GET", path: "/healthz", status: 200 });
    });
    const lines = logs.trim().split("\n");
    expect(lines).toHaveLength(samples.length + 1);
    samples.forEach((text, i) => {
      const time = JSON.parse(lines[i]!).time;
      expect(lines[i]).toBe(
        JSON.stringify({ time, level: "info", msg: "request", request_id: text, method: text, path: text, status: text, ms: 1.5 }),
      );
    });
    const last = JSON.parse(lines.at(-1)!);
    expect(lines.at(-1)).toBe(
      JSON.stringify({ time: last.time, level: "info", msg: "request", method: "GET", path: "/healthz", status: 200 }),
    );
  });
});

// /healthz on PostgreSQL tells a load balancer when the instance's database is gone (503), and is
// 200 again once it is back; on SQLite it never asks (the file is the process's own).
import { afterAll, beforeAll, expect, test } from "bun:test";
import postgres from "postgres";
import { SANDBOX_DATABASE, type Sandbox, type ServerProcess, sandbox } from "../support/binary";

let box: Sandbox;
let server: ServerProcess;

beforeAll(async () => {
  box = await sandbox();
  server = await box.serve();
});

afterAll(async () => {
  await server?.stop();
  box?.cleanup();
});

const health = async () => {
  const response = await fetch(`${server.url}/healthz`);
  return { status: response.status, body: await response.json() };
};

test.if(SANDBOX_DATABASE === "postgres")(
  "a database that stops answering makes /healthz 503 within seconds, and 200 once it is back",
  async () => {
    expect(await health()).toEqual({ status: 200, body: { status: "ok", version: expect.any(String), build: expect.any(String) } });
    const url = new URL(box.databaseUrl!);
    const database = url.pathname.slice(1);
    url.pathname = "/postgres";
    const admin = postgres(url.href, { max: 1, onnotice: () => undefined });
    try {
      // No new connection to the instance's database, and its current ones ended: as a server that went away.
      await admin.unsafe(`ALTER DATABASE ${database} ALLOW_CONNECTIONS false`);
      await admin.unsafe(
        `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '${database}' AND pid <> pg_backend_pid()`,
      );
      let down = await health();
      for (let i = 0; i < 50 && down.status === 200; i++) {
        await Bun.sleep(200);
        down = await health();
      }
      expect(down).toEqual({
        status: 503,
        body: { status: "unavailable", version: expect.any(String), build: expect.any(String), reason: "the database does not answer" },
      });
      expect(server.logs()).toContain("health check: the database does not answer");
    } finally {
      await admin.unsafe(`ALTER DATABASE ${database} ALLOW_CONNECTIONS true`);
      await admin.end();
    }
    let up = await health();
    for (let i = 0; i < 50 && up.status !== 200; i++) {
      await Bun.sleep(200);
      up = await health();
    }
    expect(up.status).toBe(200);
  },
);

test.if(SANDBOX_DATABASE === "sqlite")("on SQLite /healthz answers from the process alone", async () => {
  expect(await health()).toEqual({ status: 200, body: { status: "ok", version: expect.any(String), build: expect.any(String) } });
});

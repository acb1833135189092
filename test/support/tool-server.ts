// An in-process tool server for the tool tests: testApp (test/support/http.ts) on the test database
// (SQLite, or PostgreSQL with SPYGLASS_TEST_DATABASE=postgres), seeded by seedToolServerDb
// (test/support/fixtures.ts), with SDK clients on app.handle and raw posts for what no SDK client would send.
//
//   const s = await seededToolServer();
//   const a = await s.client(s.seed.a.key);               // the SDK Client, brand A's key
//   const { data, error } = await call(a, "list_tags");   // test/support/mcp.ts
//   const res = await s.post({ authorization: "Bearer …" }, rpc("tools/list"));
//   s.close();
import { type Client } from "@modelcontextprotocol/sdk/client/index.js";
import { seedToolServerDb, type ToolServerSeed } from "./fixtures";
import { type CallResult, type TestApp, testApp } from "./http";
import { connectInProcess, MCP_PATH } from "./mcp";

export interface SeededToolServer {
  t: TestApp;
  seed: ToolServerSeed;
  client(key: string): Promise<Client>;
  /** A raw POST to the tool server with these headers (JSON-RPC's accept header included). */
  post(headers: Record<string, string>, body: string): Promise<CallResult>;
  close(): Promise<void>;
}

export async function seededToolServer(options: Parameters<typeof testApp>[0] = {}): Promise<SeededToolServer> {
  const t = await testApp(options);
  const seed = await seedToolServerDb(t.db);
  const clients: Client[] = [];
  return {
    t,
    seed,
    async client(key) {
      const client = await connectInProcess(t.app, key);
      clients.push(client);
      return client;
    },
    post: (headers, body) =>
      t.call("POST", MCP_PATH, { rawBody: body, headers: { accept: "application/json, text/event-stream", ...headers } }),
    async close() {
      for (const client of clients) await client.close().catch(() => undefined);
      await t.close();
    },
  };
}

// Tool server throughput: a tools/list and a list_prompts call (a full page of 50 prompts with tags)
// per HTTP request, at 1 and 32 connections, against the same binary's /healthz measured in the same
// run. Each MCP request is stateless (auth, a fresh SDK server, the JSON-RPC exchange), exactly what
// a client's request costs. Run: `bun run bench/mcp.ts` (or through bench/index.ts).
import { join } from "node:path";
import { openDatabase } from "../src/db/client";
import { createPrompts } from "../src/prompts/service";
import { seedToolServerData } from "../test/support/fixtures";
import { load, report, requireBinary, sandbox } from "./lib";

const NAME = "mcp";
const PATH = "/api/mcp/mcp";

export async function run(): Promise<void> {
  requireBinary();
  const box = await sandbox();
  try {
    const dbPath = join(box.dataDir, "spyglass.db");
    const seed = await seedToolServerData(dbPath);
    const db = openDatabase(dbPath);
    await createPrompts(
      db,
      seed.a.brandId,
      Array.from({ length: 60 }, (_, i) => ({ text: `which analytics tool fits team type ${i}?`, tags: ["bench", `group ${i % 5}`] })),
    );
    db.close();
    const server = await box.serve();
    const headers = {
      authorization: `Bearer ${seed.a.key}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2025-11-25",
    };
    const rpc = (method: string, params: object) => JSON.stringify({ jsonrpc: "2.0", id: 1, method, params });
    const targets = [
      { name: "/healthz", url: `${server.url}/healthz`, method: "GET" },
      { name: "tools/list", url: `${server.url}${PATH}`, method: "POST", headers, body: rpc("tools/list", {}) },
      {
        name: "tools/call list_prompts (50 items)",
        url: `${server.url}${PATH}`,
        method: "POST",
        headers,
        body: rpc("tools/call", { name: "list_prompts", arguments: { limit: 50 } }),
      },
    ];
    for (const target of targets.slice(1)) {
      const probe = await fetch(target.url, { method: target.method, headers: target.headers, body: target.body });
      const text = await probe.text();
      if (probe.status !== 200 || text.includes('"isError":true')) throw new Error(`${target.name}: ${probe.status} ${text.slice(0, 200)}`);
      report(NAME, `${target.name} response size`, Math.round(text.length / 102.4) / 10, "KiB");
    }
    try {
      for (const connections of [1, 32]) {
        for (const target of targets) {
          const opts = { url: target.url, method: target.method, headers: target.headers, body: target.body, connections, maxMs: 5_000 };
          await load({ ...opts, maxRequests: 500, maxMs: 2_000 });
          const r = await load({ ...opts, maxRequests: 50_000 });
          report(
            NAME,
            `${target.name}, ${connections} conn`,
            Math.round(r.rps),
            `req/s p50 ${r.p50Ms.toFixed(2)} ms p95 ${r.p95Ms.toFixed(2)} ms`,
          );
          if (r.errors > 0) report(NAME, `${target.name} errors, ${connections} conn`, r.errors);
        }
      }
      report(NAME, "RSS after load", Math.round(server.rssKb() / 1024), "MiB");
    } finally {
      await server.stop();
    }
  } finally {
    box.cleanup();
  }
}

if (import.meta.main) await run();

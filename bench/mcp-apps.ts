// Prompts, completion and resources of the tool server (issue 17): a prompts/get that builds the weekly
// review from four analytics tools over a fortnight of answers, a completion, resources/list and the
// read of an MCP Apps view (a ~100 KB document), per HTTP request at 1 and 8 connections, against
// the same binary's tools/list measured in the same run. Run: `bun run bench/mcp-apps.ts`.
import { join } from "node:path";
import { fortnightOfAnswers, writeAnswersToFile } from "../test/support/answers";
import { seedToolServerData } from "../test/support/fixtures";
import { load, report, requireBinary, sandbox } from "./lib";

const NAME = "mcp-apps";
const PATH = "/api/mcp/mcp";

export async function run(): Promise<void> {
  requireBinary();
  const box = await sandbox();
  try {
    const dbPath = join(box.dataDir, "spyglass.db");
    const seed = await seedToolServerData(dbPath);
    await writeAnswersToFile(dbPath, seed.a.brandId, fortnightOfAnswers(seed.a.ids.promptId, "Acme Analytics", "Acme Rival"));
    const server = await box.serve();
    const headers = {
      authorization: `Bearer ${seed.a.key}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "mcp-protocol-version": "2025-11-25",
    };
    const rpc = (method: string, params: object) => JSON.stringify({ jsonrpc: "2.0", id: 1, method, params });
    const post = (name: string, body: string) => ({ name, url: `${server.url}${PATH}`, method: "POST", headers, body });
    const targets = [
      post("tools/list", rpc("tools/list", {})),
      post("prompts/get weekly_visibility_review", rpc("prompts/get", { name: "weekly_visibility_review" })),
      post(
        "completion/complete prompt id",
        rpc("completion/complete", {
          ref: { type: "ref/prompt", name: "close_content_gap" },
          argument: { name: "prompt", value: "small" },
        }),
      ),
      post("resources/list", rpc("resources/list", {})),
      post("resources/read ui://spyglass/visibility-trend.html", rpc("resources/read", { uri: "ui://spyglass/visibility-trend.html" })),
    ];
    for (const target of targets) {
      const probe = await fetch(target.url, { method: target.method, headers: target.headers, body: target.body });
      const text = await probe.text();
      if (probe.status !== 200 || JSON.parse(text).error !== undefined)
        throw new Error(`${target.name}: ${probe.status} ${text.slice(0, 200)}`);
      report(NAME, `${target.name} response size`, Math.round(text.length / 102.4) / 10, "KiB");
    }
    try {
      for (const connections of [1, 8]) {
        for (const target of targets) {
          const opts = { ...target, connections };
          await load({ ...opts, maxRequests: 200, maxMs: 1_000 });
          const r = await load({ ...opts, maxRequests: 5_000, maxMs: 3_000 });
          report(
            NAME,
            `${target.name}, ${connections} conn`,
            Math.round(r.rps),
            `req/s p50 ${r.p50Ms.toFixed(2)} ms p95 ${r.p95Ms.toFixed(2)} ms`,
          );
          if (r.errors > 0) report(NAME, `${target.name} errors, ${connections} conn`, r.errors);
        }
      }
    } finally {
      await server.stop();
    }
  } finally {
    box.cleanup();
  }
}

if (import.meta.main) await run();

// Re-analysis in the compiled binary, on SQLite: the demo brand (7,200 answers) is re-analysed on the
// binary's own worker thread after a competitor is deleted through the tool server; a SIGTERM during
// that pass stops the server cleanly and leaves the pass unfinished, and the next `serve` goes through
// the brand's answers again, to the end.
import { afterAll, expect, test } from "bun:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { type Sandbox, sandbox } from "../support/binary";

let box: Sandbox;
afterAll(() => box?.cleanup());

async function connect(url: string, apiKey: string): Promise<Client> {
  const client = new Client({ name: "spyglass-e2e", version: "1.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${url}/api/mcp/mcp`), { requestInit: { headers: { Authorization: `Bearer ${apiKey}` } } }),
  );
  return client;
}

test("a stop during a re-analysis leaves it unfinished; the next start goes through the brand's answers again on a worker thread", async () => {
  box = await sandbox({ database: "sqlite" });
  const demo = await box.cliJson<{ api_key: string; brand: { id: string } }>(["demo"]);
  const mentionsOf = (memberId: string) =>
    box.withDb(async (db) => (await db.get<{ n: number }>("SELECT count(*) AS n FROM mentions WHERE member_id = ?", [memberId]))!.n);
  const versions = () =>
    box.withDb(async (db) => await db.get<{ version: number; analysed: number }>("SELECT version, analysed FROM roster_versions"));

  let server = await box.serve();
  let client = await connect(server.url, demo.api_key);
  const listed = await client.callTool({ name: "list_competitors", arguments: {} });
  const competitor = (listed.structuredContent as { competitors: Array<{ id: string }> }).competitors[0]!.id;
  const before = await mentionsOf(competitor);
  expect(before).toBeGreaterThan(100);
  // The demo's own roster edits were re-analysed to the end.
  const seeded = (await versions())!;
  expect(seeded.analysed).toBe(seeded.version);
  const deleted = await client.callTool({ name: "delete_competitor", arguments: { competitor_id: competitor } });
  expect(deleted.isError).toBeFalsy();
  await client.close();
  // At once: the pass over 7,200 answers has just begun.
  expect(await server.stop()).toBe(0);
  expect(server.logs()).not.toContain("re-analysis finished");
  expect(await versions()).toEqual({ version: seeded.version + 1, analysed: seeded.version });
  // Mentions of the deleted competitor are left in the answers the pass had not reached.
  expect(await mentionsOf(competitor)).toBeGreaterThan(0);

  server = await box.serve();
  for (let tries = 0; tries < 600 && !server.logs().includes('"msg":"re-analysis finished"'); tries++) await Bun.sleep(100);
  const logs = server.logs();
  expect(logs).toContain('"msg":"re-analysis resumed: the brand\'s answers were not all analysed with its current roster"');
  // The compiled binary carries the worker's entry: the pass ran there, not on the serving thread.
  expect(logs).toMatch(/"msg":"re-analysis finished"[^\n]*"thread":"worker"/);
  expect(logs).not.toContain("the re-analysis worker");
  expect(await mentionsOf(competitor)).toBe(0);
  expect(await versions()).toEqual({ version: seeded.version + 2, analysed: seeded.version + 2 });
  // The figures read through the tool server: the deleted competitor is gone from the ranking.
  client = await connect(server.url, demo.api_key);
  const ranking = await client.callTool({ name: "get_competitor_ranking", arguments: {} });
  expect(JSON.stringify(ranking.structuredContent)).not.toContain(competitor);
  await client.close();
  expect(await server.stop()).toBe(0);
});

// Prompts, completion and resources of the compiled binary, brand against brand and plan against plan:
// brand B's key sends brand A's names, ids and URIs and must get "not found" or its own data only,
// never a figure, name or text of A's (the matrix: test/support/prompt-resource-isolation.ts). Every
// declared prompt and every kind of resource has a row; adding one without a row fails the first test.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { type Client } from "@modelcontextprotocol/sdk/client/index.js";
import { fortnightOfAnswers, writeAnswers } from "../support/answers";
import { type Sandbox, type ServerProcess, sandbox } from "../support/binary";
import { seedToolServerDb, type ToolServerSeed } from "../support/fixtures";
import { connect } from "../support/mcp";
import { expectEveryPromptAndResourceHasARow, expectPromptAndResourceIsolation } from "../support/prompt-resource-isolation";

setDefaultTimeout(60_000);

let box: Sandbox;
let server: ServerProcess;
let seed: ToolServerSeed;
const clients: Client[] = [];

async function client(key: string): Promise<Client> {
  const c = await connect(server.url, key);
  clients.push(c);
  return c;
}

beforeAll(async () => {
  box = await sandbox();
  seed = await box.withDb(seedToolServerDb);
  await box.withDb((db) => writeAnswers(db, seed.a.brandId, fortnightOfAnswers(seed.a.ids.promptId, "Acme Analytics", "Acme Rival")));
  server = await box.serve();
}, 60_000);

afterAll(async () => {
  for (const c of clients) await c.close().catch(() => undefined);
  await server?.stop();
  box?.cleanup();
}, 60_000);

describe("brand isolation of prompts and resources", () => {
  test("every prompt and every kind of resource has a row", async () => {
    await expectEveryPromptAndResourceHasARow(await client(seed.a.key));
  });

  test("brand B's key gets 'not found' or its own data for each prompt, resource and completion given brand A's", async () => {
    await expectPromptAndResourceIsolation(await client(seed.b.key), await client(seed.a.key), seed.a, seed.b);
  });
});

describe("plans", () => {
  test("a Visibility key sees no content prompt, no publish view, no article and no template", async () => {
    const v = await client(seed.visibility.key);
    expect((await v.listPrompts()).prompts.map((p) => p.name)).not.toContain("close_content_gap");
    const uris = (await v.listResources()).resources.map((r) => r.uri);
    expect(uris).toEqual(["ui://spyglass/visibility-trend.html", "ui://spyglass/competitor-ranking.html", "ui://spyglass/overview.html"]);
    expect((await v.listResourceTemplates()).resourceTemplates).toEqual([]);
    const refused = await v.getPrompt({ name: "close_content_gap", arguments: { prompt: "x" } }).then(
      () => "",
      (e: Error) => e.message,
    );
    expect(refused).toContain("requires the Autopilot plan");
    const view = await v.readResource({ uri: "ui://spyglass/publish.html" }).then(
      () => "",
      (e: Error) => e.message,
    );
    expect(view).toContain("Resource not found");
    expect(view).toContain("reading it requires the Autopilot plan");
  });

  test("the compiled binary serves each view as one self-contained MCP App document", async () => {
    const a = await client(seed.a.key);
    for (const { uri, mimeType } of (await a.listResources()).resources.filter((r) => r.uri.startsWith("ui://"))) {
      expect(mimeType).toBe("text/html;profile=mcp-app");
      const content = (await a.readResource({ uri })).contents[0] as { text: string; _meta?: unknown };
      expect(content._meta).toEqual({ ui: { csp: { connectDomains: [], resourceDomains: [] }, prefersBorder: true } });
      expect(content.text).toContain('<script type="module">');
      expect(content.text.length).toBeGreaterThan(20_000);
      expect(content.text).not.toMatch(/<(script|link|img)[^>]+(src|href)=/i);
    }
  });
});

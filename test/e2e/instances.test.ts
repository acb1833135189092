// Two Spyglass instances (the compiled binary, each in its own directory) on one PostgreSQL, as
// behind a load balancer (issue 21): what one instance's CLI or API does is seen through the other
// on the next request: a key, its revocation, a plan change; a publish within the caches' bound
// (tracking shared between instances: tracking-instances.test.ts).
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { type Sandbox, type ServerProcess, sandbox } from "../support/binary";
import { raw, rpc } from "../support/mcp";
import { freshPostgresUrl } from "../support/postgres";

setDefaultTimeout(60_000);

const TOML = "[tracking]\nenabled = false\n";
let url: string;
let boxes: Sandbox[] = [];
let one: ServerProcess;
let two: ServerProcess;
let email: string;
let brandId: string;

beforeAll(async () => {
  url = await freshPostgresUrl();
  const env = { SPYGLASS_DATABASE_URL: url };
  boxes = [await sandbox({ toml: TOML, env }), await sandbox({ toml: TOML, env })];
  email = "agency@example.com";
  await boxes[0]!.cliJson(["account", "create", "--email", email, "--password", "a long password", "--plan", "visibility"]);
  brandId = (await boxes[0]!.cliJson<{ id: string }>(["brand", "create", "--email", email, "--name", "Acme", "--domain", "acme.com"])).id;
  [one, two] = await Promise.all([boxes[0]!.serve(), boxes[1]!.serve()]);
}, 120_000);

afterAll(() => {
  for (const box of boxes) box.cleanup();
});

const toolsList = (server: ServerProcess, key: string) =>
  raw(server.url, { headers: { authorization: `Bearer ${key}` }, body: rpc("tools/list") });

describe("two instances on one PostgreSQL", () => {
  test("a key made through one instance works through the other; its revocation applies there on the next request", async () => {
    const created = await boxes[0]!.cliJson<{ plaintext: string; key: { id: string } }>([
      "key",
      "create",
      "--email",
      email,
      "--brand",
      brandId,
      "--name",
      "laptop",
    ]);
    expect((await toolsList(two, created.plaintext)).status).toBe(200);
    expect((await toolsList(one, created.plaintext)).status).toBe(200);
    // The second instance's CLI revokes; the first instance refuses the very next request.
    await boxes[1]!.cliJson(["key", "revoke", "--email", email, "--id", created.key.id]);
    expect((await toolsList(one, created.plaintext)).status).toBe(401);
    expect((await toolsList(two, created.plaintext)).status).toBe(401);
  });

  test("a plan change made through one instance applies to keys on the other at once", async () => {
    const { plaintext } = await boxes[0]!.cliJson<{ plaintext: string }>([
      "key",
      "create",
      "--email",
      email,
      "--brand",
      brandId,
      "--name",
      "ci",
    ]);
    expect((await toolsList(two, plaintext)).status).toBe(200);
    await boxes[0]!.cliJson(["account", "plan", "--email", email, "--plan", "none"]);
    expect((await toolsList(two, plaintext)).status).toBe(403);
    await boxes[1]!.cliJson(["account", "plan", "--email", email, "--plan", "visibility"]);
    expect((await toolsList(one, plaintext)).status).toBe(200);
  });

  test("an article published through one instance is in the other's public list (cached there before) within the bound", async () => {
    await boxes[0]!.cliJson(["account", "plan", "--email", email, "--plan", "autopilot"]);
    const { plaintext } = await boxes[0]!.cliJson<{ plaintext: string }>([
      "key",
      "create",
      "--email",
      email,
      "--brand",
      brandId,
      "--name",
      "writer",
    ]);
    const tool = async (server: ServerProcess, name: string, args: Record<string, unknown> = {}) => {
      const res = await raw(server.url, {
        headers: { authorization: `Bearer ${plaintext}` },
        body: rpc("tools/call", { name, arguments: args }),
      });
      const result = JSON.parse(res.text).result;
      expect(result.isError).toBeFalsy();
      return result.structuredContent;
    };
    const siteKey: string = (await tool(one, "get_brand")).brand.site_key;
    const list = async (server: ServerProcess) => {
      const res = await fetch(`${server.url}/api/public/articles?key=${siteKey}`);
      expect(res.status).toBe(200);
      return ((await res.json()) as { articles: Array<{ slug: string }> }).articles.map((a) => a.slug);
    };
    // The second instance has the (empty) list in its cache before the publish.
    expect(await list(two)).toEqual([]);
    expect(await list(two)).toEqual([]);
    const created = await tool(one, "create_article", { title: "Best CRM for agencies", slug: "best-crm", markdown: "Acme **fits**." });
    await tool(one, "publish_to_site", { article_id: created.article.id });
    expect(await list(one)).toEqual(["best-crm"]);
    // Through the other instance: at once when PostgreSQL's notification arrives, at worst after 5 s
    // (waited for up to 15, for a loaded machine's late timers).
    const started = performance.now();
    let seen: string[] = [];
    while (performance.now() - started < 15_000) {
      seen = await list(two);
      if (seen.length > 0) break;
      await Bun.sleep(25);
    }
    expect(seen).toEqual(["best-crm"]);
    const article = await fetch(`${two.url}/api/public/articles/best-crm?key=${siteKey}`);
    expect(article.status).toBe(200);
    expect(((await article.json()) as { article: { html: string } }).article.html).toContain("<strong>fits</strong>");
    await boxes[0]!.cliJson(["account", "plan", "--email", email, "--plan", "visibility"]);
  });

  test("both instances serve one dataset: the data directory holds no SQLite database", async () => {
    for (const box of boxes) {
      expect(existsSync(join(box.dataDir, "spyglass.db"))).toBe(false);
      const brands = await box.cliJson<{ brands: Array<{ id: string }> }>(["brand", "list", "--email", email]);
      expect(brands.brands.map((b) => b.id)).toEqual([brandId]);
    }
    const health = await Promise.all([one, two].map(async (s) => (await fetch(`${s.url}/healthz`)).status));
    expect(health).toEqual([200, 200]);
  });
});

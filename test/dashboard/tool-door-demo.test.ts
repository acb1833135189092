// The dashboard's door and the MCP door give the same answers for every read tool, on the demo brand.
// Apart from test/dashboard/tool-door.test.ts because seeding the demo (7,200 answers, one statement
// at a time) takes about a minute on PostgreSQL: this file runs on SQLite only (build.sh's
// POSTGRES_TESTS), the rest of the door's tests on both.
import { describe, expect, test } from "bun:test";
import { TOOLS } from "../../src/catalogue/tools";
import { seedDemo } from "../../src/demo/seeder";
import { sessionCookieOf, testApp } from "../support/http";

describe("the same answers through both doors", () => {
  test("every read tool gives the session the result it gives an API key, on the demo brand", async () => {
    const demoApp = await testApp();
    try {
      const demo = await seedDemo(demoApp.ctx);
      const login = await demoApp.call("POST", "/api/auth/login", { body: demo.login });
      const session = sessionCookieOf(login.headers);
      const viaMcp = async (name: string, args: Record<string, unknown>) => {
        const res = await demoApp.call("POST", "/api/mcp/mcp", {
          body: { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name, arguments: args } },
          headers: { authorization: `Bearer ${demo.api_key}`, accept: "application/json, text/event-stream" },
        });
        return res.json.result as { structuredContent: Record<string, unknown>; isError?: boolean };
      };
      const answerId = ((await viaMcp("list_answers", { limit: 1 })).structuredContent.answers as Array<{ id: string }>)[0]!.id;
      const args: Record<string, Record<string, unknown>> = {
        get_answer: { answer_id: answerId },
        get_article: { article_id: demo.article!.id },
      };
      const readTools = TOOLS.filter((tool) => tool.annotations.readOnlyHint);
      expect(readTools.length).toBeGreaterThan(10);
      for (const tool of readTools) {
        const input = args[tool.name] ?? {};
        const mcp = await viaMcp(tool.name, input);
        expect([tool.name, mcp.isError]).toEqual([tool.name, undefined]);
        const viaSession = await demoApp.call("POST", `/api/brands/${demo.brand.id}/tools/${tool.name}`, { cookie: session, body: input });
        expect([tool.name, viaSession.status, viaSession.json]).toEqual([tool.name, 200, mcp.structuredContent]);
      }
    } finally {
      await demoApp.close();
    }
  });
});

// What an OAuth access token costs the tool server's door beside an API key: the same tools/list,
// in process (app.handle, no sockets), with rounds interleaved key/token so that drift on a shared
// machine falls on both. Not a scenario of `./build.sh bench`; run by hand:
//
//   bun run bench/oauth-door.ts
//
// Session 44: 37 µs a request with a key against 76 with a token, which was read (three queries) on
// every request; with tokens remembered until the database changes, as keys are, 44 against 45.
import { join } from "node:path";
import { sessionCookieName } from "../src/accounts/guard";
import { createSession } from "../src/accounts/sessions";
import { seedToolServerData } from "../test/support/fixtures";
import { testApp } from "../test/support/http";
import { MCP_PATH, rpc } from "../test/support/mcp";
import { authorizeQuery, consent, pkce, RESOURCE, registerClient, tokenRequest } from "../test/support/oauth";
import { scratchDir } from "../test/support/scratch";
import { median } from "./lib";

const ROUNDS = 8;
const REQUESTS = 500;

const dbPath = join(scratchDir("spyglass-bench-oauth-"), "spyglass.db");
const seed = await seedToolServerData(dbPath);
const t = await testApp({ dbPath, publicUrl: "https://spyglass.test" });
const cookie = `${sessionCookieName(t.config)}=${(await createSession(t.db, seed.a.accountId)).token}`;
const client = await registerClient(t, ["http://127.0.0.1:7777/callback"]);
const pair = pkce();
const code = (await consent(t, cookie, authorizeQuery(client, pair), seed.a.brandId)).searchParams.get("code")!;
const token = (
  await tokenRequest(t, {
    grant_type: "authorization_code",
    code,
    code_verifier: pair.verifier,
    client_id: client.id,
    redirect_uri: client.redirectUri,
    resource: RESOURCE,
  })
).json.access_token as string;

async function round(credential: string): Promise<number> {
  const body = rpc("tools/list");
  const started = performance.now();
  for (let i = 0; i < REQUESTS; i++) {
    const res = await t.app.handle(
      new Request(`https://spyglass.test${MCP_PATH}`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${credential}`,
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
        },
        body,
      }),
    );
    if (res.status !== 200) throw new Error(`status ${res.status}`);
    await res.arrayBuffer();
  }
  return ((performance.now() - started) * 1000) / REQUESTS;
}

const times: Record<"key" | "token", number[]> = { key: [], token: [] };
await round(seed.a.key);
await round(token);
for (let r = 0; r < ROUNDS; r++) {
  const order = r % 2 === 0 ? (["key", "token"] as const) : (["token", "key"] as const);
  for (const which of order) times[which].push(await round(which === "key" ? seed.a.key : token));
}
console.log(`tools/list in process, median of ${ROUNDS} rounds of ${REQUESTS}:`);
console.log(`  API key       ${median(times.key).toFixed(0)} µs/request`);
console.log(`  access token  ${median(times.token).toFixed(0)} µs/request`);
await t.close();

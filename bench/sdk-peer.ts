// The baseline of the MCP tool-call row of bench/door.ts: a stateless tool server hand-built on the
// same MCP SDK, as the SDK's stateless example builds it (a Server and a transport per request, one
// shared Ajv), answering every tools/call with a fixed result read from a file: no key check, no
// SQL, no catalogue. Run by bench/door.ts in a process of its own; prints its port on stdout.
//
//   PEER_RESULT=/path/result.json bun bench/sdk-peer.ts
import { readFileSync } from "node:fs";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { CallToolRequestSchema, type CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";

const result = JSON.parse(readFileSync(process.env.PEER_RESULT!, "utf8")) as CallToolResult;
const jsonSchemaValidator = new AjvJsonSchemaValidator();

const http = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  async fetch(request) {
    const server = new Server({ name: "peer", version: "1.0.0" }, { capabilities: { tools: {} }, jsonSchemaValidator });
    server.setRequestHandler(CallToolRequestSchema, () => result);
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    try {
      await server.connect(transport);
      return await transport.handleRequest(request);
    } finally {
      await server.close();
    }
  },
});
process.stdout.write(`${http.port}\n`);

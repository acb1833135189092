// The view's side of the MCP Apps protocol (io.modelcontextprotocol/ui, 2026-01-26): JSON-RPC over
// postMessage with the host window. The view asks ui/initialize, says ui/notifications/initialized,
// then draws each ui/notifications/tool-result the host forwards, and reports its size. Written here
// rather than taken from @modelcontextprotocol/ext-apps: its App class needs the v2 MCP SDK, which
// would be ~540 KB inlined into every view for these few messages.
import { type CallToolResult } from "@modelcontextprotocol/sdk/types.js";

export const APPS_PROTOCOL_VERSION = "2026-01-26";

interface Message {
  jsonrpc: "2.0";
  id?: number | string;
  method?: string;
  params?: Record<string, unknown>;
  result?: Record<string, unknown>;
  error?: { code: number; message: string };
}

export interface ViewEvents {
  onToolResult(result: CallToolResult): void;
}

let nextId = 1;
const pending = new Map<number, { resolve: (r: Record<string, unknown>) => void; reject: (e: Error) => void }>();

function post(message: Message): void {
  // The host's origin is not known to a view (hosts load it from srcdoc or a sandbox origin): "*",
  // and no secret is ever sent.
  window.parent.postMessage(message, "*");
}

function request(method: string, params: Record<string, unknown>): Promise<Record<string, unknown>> {
  const id = nextId++;
  post({ jsonrpc: "2.0", id, method, params });
  return new Promise((resolve, reject) => pending.set(id, { resolve, reject }));
}

/** Asks the host to call one of this server's tools (the host decides, and may ask its user). */
export async function callServerTool(name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  return (await request("tools/call", { name, arguments: args })) as unknown as CallToolResult;
}

/** Connects to the host: the handshake, then `events` for what the host sends. Says whether the host forwards tools/call. */
export async function connectToHost(events: ViewEvents, appInfo: { name: string; version: string }): Promise<{ canCallTools: boolean }> {
  window.addEventListener("message", (event: MessageEvent) => {
    if (event.source !== window.parent) return;
    const message = event.data as Message;
    if (message?.jsonrpc !== "2.0") return;
    if (message.method === undefined && message.id !== undefined) {
      const waiting = pending.get(Number(message.id));
      pending.delete(Number(message.id));
      if (message.error) waiting?.reject(new Error(message.error.message));
      else waiting?.resolve(message.result ?? {});
      return;
    }
    const params = message.params ?? {};
    switch (message.method) {
      case "ui/notifications/tool-result":
        events.onToolResult(params as unknown as CallToolResult);
        break;
      case "ui/notifications/tool-input":
      case "ui/notifications/tool-input-partial":
      case "ui/notifications/tool-cancelled":
      case "ui/notifications/host-context-changed":
        // Each view draws the result alone, whatever the input, and follows the system colour scheme.
        break;
      default:
        // Requests the view has nothing to do for (teardown, ping) are answered with an empty result.
        if (message.id !== undefined) {
          if (message.method === "ui/resource-teardown" || message.method === "ping") post({ jsonrpc: "2.0", id: message.id, result: {} });
          else post({ jsonrpc: "2.0", id: message.id, error: { code: -32601, message: `Method not found: ${message.method}` } });
        }
    }
  });
  const init = await request("ui/initialize", { appInfo, appCapabilities: {}, protocolVersion: APPS_PROTOCOL_VERSION });
  post({ jsonrpc: "2.0", method: "ui/notifications/initialized", params: {} });
  // The content's own size (scrollHeight never drops below the frame's height, so a view could not shrink).
  const size = () => {
    const box = document.documentElement.getBoundingClientRect();
    post({
      jsonrpc: "2.0",
      method: "ui/notifications/size-changed",
      params: { width: Math.ceil(box.width), height: Math.ceil(box.height) },
    });
  };
  new ResizeObserver(size).observe(document.body);
  const host = (init.hostCapabilities ?? {}) as { serverTools?: object };
  return { canCallTools: host.serverTools !== undefined };
}

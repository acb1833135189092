// A minimal MCP Apps host for the browser tests, built on the extension's own host SDK (AppBridge from
// @modelcontextprotocol/ext-apps, installed with the MCP tools in .tools/): it loads a view's HTML in a
// sandboxed iframe (scripts only, an opaque origin, as hosts do), answers ui/initialize with a host
// context, then sends the tool's input and result, grows the frame to the size the view reports, and
// (when it offers serverTools) forwards the view's tools/call to the test's MCP client.
// Bundled for Chromium by test/e2e/mcp-apps.test.ts; run there as window.showView(...).
import { AppBridge, PostMessageTransport } from "../../.tools/mcp-tools/node_modules/@modelcontextprotocol/ext-apps/dist/src/app-bridge.js";

declare global {
  interface Window {
    showView(html: string, input: Record<string, unknown>, result: unknown, theme: "light" | "dark", serverTools?: boolean): Promise<void>;
    hostLog: string[];
    /** Set by the test (page.exposeFunction): runs a tools/call on the host's MCP connection. */
    forwardToolCall?: (params: { name: string; arguments?: Record<string, unknown> }) => Promise<unknown>;
  }
}

window.hostLog = [];

window.showView = (html, input, result, theme, serverTools = false) =>
  new Promise((resolve, reject) => {
    const iframe = document.createElement("iframe");
    iframe.setAttribute("sandbox", "allow-scripts");
    iframe.title = "MCP App";
    iframe.style.cssText = "width: 100%; border: 1px solid #ccc; border-radius: 8px; height: 200px; display: block";
    document.body.append(iframe);
    const view = iframe.contentWindow;
    if (!view) return reject(new Error("no iframe window"));
    const bridge = new AppBridge(
      null,
      { name: "spyglass-test-host", version: "1.0.0" },
      // serverTools: the host forwards a view's tools/call to the MCP server, as Claude and VS Code do.
      serverTools ? { openLinks: {}, logging: {}, serverTools: {} } : { openLinks: {}, logging: {} },
      { hostContext: { theme, displayMode: "inline", platform: "web", locale: "en-US" } },
    );
    if (serverTools) {
      bridge.oncalltool = async (params) => {
        window.hostLog.push(`tools/call ${params.name}`);
        const forward = window.forwardToolCall;
        if (!forward) throw new Error("no MCP connection");
        return (await forward(params)) as never;
      };
    }
    bridge.onsizechange = ({ height }) => {
      if (height) iframe.style.height = `${height + 2}px`;
    };
    bridge.oninitialized = () => {
      window.hostLog.push("initialized");
      bridge
        .sendToolInput({ arguments: input })
        .then(() => bridge.sendToolResult(result as never))
        .then(() => {
          window.hostLog.push("result sent");
          resolve();
        }, reject);
    };
    bridge.connect(new PostMessageTransport(view, view)).catch(reject);
    iframe.srcdoc = html;
  });

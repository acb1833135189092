// A minimal MCP Apps host for the browser tests, built on the extension's own host SDK (AppBridge from
// @modelcontextprotocol/ext-apps, installed with the MCP tools in .tools/): it loads a view's HTML in a
// sandboxed iframe (scripts only, an opaque origin, as hosts do), answers ui/initialize with a host
// context, then sends the tool's input and result, and grows the frame to the size the view reports.
// Bundled for Chromium by test/e2e/mcp-apps.test.ts; run there as window.showView(...).
import { AppBridge, PostMessageTransport } from "../../.tools/mcp-tools/node_modules/@modelcontextprotocol/ext-apps/dist/src/app-bridge.js";

declare global {
  interface Window {
    showView(html: string, input: Record<string, unknown>, result: unknown, theme: "light" | "dark"): Promise<void>;
    hostLog: string[];
  }
}

window.hostLog = [];

window.showView = (html, input, result, theme) =>
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
      { openLinks: {}, logging: {} },
      { hostContext: { theme, displayMode: "inline", platform: "web", locale: "en-US" } },
    );
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

// The MCP Apps views: one bundle, four views; the document the server serves names its view in
// <meta name="spyglass-view">. Each view draws the structuredContent of the tool result the host
// forwards, with the dashboard's own components, and fetches nothing (the document's CSP forbids it).
// Light or dark follows the system setting, as the dashboard does (its styles key on
// prefers-color-scheme), not the host context's theme.
import "../../dashboard/web/styles.css";
import "../../dashboard/web/pages/overview/overview.css";
import "./view.css";
import { type CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { render } from "preact";
import { useEffect, useMemo, useState } from "preact/hooks";
import { callServerTool, connectToHost } from "./bridge";
import { type Host, type ViewName, views } from "./views";

function App({ view }: { view: ViewName }) {
  const [result, setResult] = useState<CallToolResult | null>(null);
  const [failure, setFailure] = useState<string | null>(null);
  const [canCallTools, setCanCallTools] = useState(false);
  useEffect(() => {
    connectToHost({ onToolResult: setResult }, { name: `spyglass-${view}`, version: "1" }).then(
      (host) => setCanCallTools(host.canCallTools),
      (e: Error) => setFailure(`The host did not answer ui/initialize: ${e.message}`),
    );
  }, [view]);
  // What a view may ask of a host that runs tools for views (serverTools); made once, since a new
  // object each render would re-run a view's effects.
  const host = useMemo<Host | null>(() => (canCallTools ? { callTool: callServerTool, show: setResult } : null), [canCallTools]);
  const View = views[view];
  if (failure) return <p class="notice notice-error">{failure}</p>;
  if (!result)
    return (
      <p class="loading" role="status">
        Waiting for the tool's result…
      </p>
    );
  if (result.isError) {
    const first = result.content[0];
    return <p class="notice notice-error">{first?.type === "text" ? first.text : "The tool reported an error."}</p>;
  }
  if (!result.structuredContent) return <p class="notice notice-error">The tool's result carries no structured content to draw.</p>;
  // A host sends a view the results of the tool that names it.
  return <View data={result.structuredContent as never} host={host} />;
}

const name = document.querySelector<HTMLMetaElement>('meta[name="spyglass-view"]')?.content as ViewName | undefined;
const root = document.getElementById("app");
if (root && name && name in views) render(<App view={name} />, root);

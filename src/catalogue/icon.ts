// The server's icon (MCP 2025-11-25 "icons"): a small SVG embedded as a data URI, so that no client
// fetches anything from another host to show it. A spyglass lens over the brand's navy.
import { type Icon } from "./resources";

const SVG =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 32 32"><rect width="32" height="32" rx="7" fill="#1f3a5f"/><circle cx="14" cy="14" r="7" fill="none" stroke="#fff" stroke-width="3"/><path d="M19 19l7 7" stroke="#f5b942" stroke-width="4" stroke-linecap="round"/></svg>';

export const SPYGLASS_ICONS: Icon[] = [
  { src: `data:image/svg+xml;base64,${Buffer.from(SVG).toString("base64")}`, mimeType: "image/svg+xml", sizes: ["any"] },
];

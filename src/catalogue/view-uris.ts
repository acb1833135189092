// The ui:// addresses of the MCP Apps views (declared in src/apps/views.ts), named here so that a
// tool's declaration can point at its view without importing the view's bundle.
export const TREND_VIEW = "ui://spyglass/visibility-trend.html";
export const RANKING_VIEW = "ui://spyglass/competitor-ranking.html";
export const OVERVIEW_VIEW = "ui://spyglass/overview.html";
export const PUBLISH_VIEW = "ui://spyglass/publish.html";

// The MCP Apps views (io.modelcontextprotocol/ui) as ui:// resources: each is one self-contained HTML
// document (the bundle's JS and CSS inlined, the view's name in a meta tag) that a host loads in a
// sandboxed iframe. The document carries its own CSP (hashes of its one script and one style,
// nothing else, so no request can leave it), and its resource `_meta.ui.csp` declares no outside
// domain. In the compiled binary the bundle is Bun's HTML import, embedded like the dashboard's; run
// from source, it is built once on first use.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { type HTMLBundle } from "bun";
import { type ViewDef } from "../catalogue/resources";
import { OVERVIEW_VIEW, PUBLISH_VIEW, RANKING_VIEW, TREND_VIEW } from "../catalogue/view-uris";
import { ARTICLE_STYLE } from "../dashboard/web/components/article-document";
import page from "./web/view.html";

/** The extension's resource metadata: no domain to connect to or load from; a border suits the chat. */
const VIEW_META = { ui: { csp: { connectDomains: [], resourceDomains: [] }, prefersBorder: true } };

function sha256(text: string): string {
  return `'sha256-${new Bun.CryptoHasher("sha256").update(text).digest("base64")}'`;
}

/** `</script` or `</style` inside inlined code would end its element early. */
function inlineSafe(code: string, tag: "script" | "style"): string {
  return code.replace(new RegExp(`</${tag}`, "gi"), `<\\/${tag}`);
}

export function viewDocument(view: string, js: string, css: string): string {
  const script = inlineSafe(js, "script");
  const style = inlineSafe(css, "style");
  const csp = [
    "default-src 'none'",
    `script-src ${sha256(script)}`,
    // Its own style, and the article preview's (the preview's srcdoc inherits this policy).
    `style-src ${sha256(style)} ${sha256(ARTICLE_STYLE)}`,
    "img-src data:",
    "base-uri 'none'",
    "form-action 'none'",
  ].join("; ");
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta http-equiv="Content-Security-Policy" content="${csp}"><meta name="viewport" content="width=device-width, initial-scale=1"><meta name="color-scheme" content="light dark"><meta name="spyglass-view" content="${view}"><title>Spyglass</title><style>${style}</style></head>
<body><div id="app"></div><script type="module">${script}</script></body></html>`;
}

let assets: Promise<{ js: string; css: string }> | null = null;

async function buildAssets(): Promise<{ js: string; css: string }> {
  const bundle = page as unknown as HTMLBundle;
  const files = bundle.files;
  if (files) {
    const text = (loader: string) =>
      files
        .filter((f) => f.loader === loader)
        .map((f) => readFileSync(f.path, "utf8"))
        .join("\n");
    return { js: text("js"), css: text("css") };
  }
  const built = await Bun.build({ entrypoints: [join(import.meta.dir, "web/main.tsx")], target: "browser", minify: true });
  if (!built.success) throw new Error(`the MCP Apps views did not build: ${built.logs.join("\n")}`);
  const read = async (kind: string) =>
    (
      await Promise.all(
        built.outputs
          .filter((o) => o.kind === "entry-point" || o.kind === "asset" || o.kind === "chunk")
          .filter((o) => o.path.endsWith(kind))
          .map((o) => o.text()),
      )
    ).join("\n");
  return { js: await read(".js"), css: await read(".css") };
}

const documents = new Map<string, Promise<string>>();

function documentOf(view: string): Promise<string> {
  let doc = documents.get(view);
  if (!doc) {
    assets ??= buildAssets();
    doc = assets.then(({ js, css }) => viewDocument(view, js, css));
    documents.set(view, doc);
  }
  return doc;
}

function view(uri: string, name: string, title: string, description: string, plan: ViewDef["plan"]): ViewDef {
  const slug = uri.replace("ui://spyglass/", "").replace(".html", "");
  return { uri, name, title, description, plan, meta: VIEW_META, html: () => documentOf(slug) };
}

export const VIEWS: readonly ViewDef[] = [
  view(
    TREND_VIEW,
    "visibility_trend_view",
    "Visibility trend chart",
    "Draws get_visibility_trend: visibility and share of voice over time with their 95% intervals.",
    "visibility",
  ),
  view(
    RANKING_VIEW,
    "competitor_ranking_view",
    "Competitor ranking table",
    "Draws get_competitor_ranking: the brand and its competitors ranked by visibility.",
    "visibility",
  ),
  view(
    OVERVIEW_VIEW,
    "overview_view",
    "Visibility overview tiles",
    "Draws get_visibility_overview: each figure with n, its 95% interval and its change with the noise verdict.",
    "visibility",
  ),
  view(
    PUBLISH_VIEW,
    "publish_view",
    "Publish confirmation",
    "Draws get_article and publish_to_site: the article as the brand's site is (or will be) served it, sanitized, with a button to publish a draft.",
    "autopilot",
  ),
];

// Resources as data: the brand's articles (drafts and published, as Markdown and as the sanitized HTML
// its site is served) and the MCP Apps views (ui://), each with the plan it needs. The door lists and
// reads them for a principal; nothing here takes a brand id other than the principal's.
import { describePlan, type PaidPlan, planChangeHint, planCovers, planLabel } from "../accounts/plans";
import { type ArticleSummary, getArticleBySlug, listArticles, shownTitle } from "../content/service";
import { type Plan } from "../db/values";
import { Invalid, NotFound } from "../errors";
import { articleSlugs } from "./completions";
import { type ToolContext } from "./registry";

export const ARTICLE_SCHEME = "spyglass://articles/";

/** The Markdown source of an article. */
export function articleUri(slug: string): string {
  return `${ARTICLE_SCHEME}${slug}`;
}
/** The sanitized HTML of an article, exactly as the public content API serves it. */
export function articleHtmlUri(slug: string): string {
  return `${ARTICLE_SCHEME}${slug}/html`;
}

export interface ResourceListing {
  uri: string;
  name: string;
  title: string;
  description?: string;
  mimeType: string;
  icons?: Icon[];
  _meta?: Record<string, unknown>;
}

export interface Icon {
  src: string;
  mimeType: string;
  sizes?: string[];
}

export interface ResourceContents {
  uri: string;
  mimeType: string;
  text: string;
  _meta?: Record<string, unknown>;
}

export interface ResourceTemplateListing {
  uriTemplate: string;
  name: string;
  title: string;
  description: string;
  mimeType: string;
}

/** A link to a resource inside a tool result (MCP resource_link content). */
export interface ResourceLink {
  type: "resource_link";
  uri: string;
  name: string;
  title?: string;
  description?: string;
  mimeType: string;
}

/** An MCP Apps view: a single self-contained HTML document served as a ui:// resource. */
export interface ViewDef {
  uri: string;
  name: string;
  title: string;
  description: string;
  plan: PaidPlan;
  /** The document (built once, at start); `_meta.ui` of the resource, per the extension. */
  html: () => Promise<string>;
  meta: Record<string, unknown>;
}

export const ARTICLES_PLAN: PaidPlan = "autopilot";
const ARTICLE_TEMPLATES: ResourceTemplateListing[] = [
  {
    uriTemplate: `${ARTICLE_SCHEME}{slug}`,
    name: "article",
    title: "Article (Markdown)",
    description: "One of the brand's articles, draft or published, as its Markdown source; {slug} as list_articles shows it.",
    mimeType: "text/markdown",
  },
  {
    uriTemplate: `${ARTICLE_SCHEME}{slug}/html`,
    name: "article_html",
    title: "Article (HTML as served)",
    description: "One of the brand's articles as the sanitized HTML the public content API serves to its site.",
    mimeType: "text/html",
  },
];

const PAGE = 50;

function articleListings(a: ArticleSummary): ResourceListing[] {
  const title = shownTitle(a.title);
  const state = a.status === "published" ? "published" : "draft";
  return [
    {
      uri: articleUri(a.slug),
      name: a.slug,
      title: `${title} (${state}, Markdown)`,
      description: a.description ?? undefined,
      mimeType: "text/markdown",
    },
    {
      uri: articleHtmlUri(a.slug),
      name: `${a.slug}.html`,
      title: `${title} (${state}, HTML)`,
      description: a.description ?? undefined,
      mimeType: "text/html",
    },
  ];
}

/** Links to an article's two resources, for tool results that mention it. */
export function articleLinks(a: { slug: string; title: string; status?: string }): ResourceLink[] {
  const title = shownTitle(a.title);
  return [
    // In the order the SDK's schema writes a link's keys, so that the tool server's direct answers
    // (src/mcp/direct.ts) are byte for byte the SDK server's.
    { name: a.slug, title, uri: articleUri(a.slug), mimeType: "text/markdown", type: "resource_link" },
    { name: `${a.slug}.html`, title: `${title} (HTML)`, uri: articleHtmlUri(a.slug), mimeType: "text/html", type: "resource_link" },
  ];
}

export interface ResourceCatalog {
  views: readonly ViewDef[];
  list(ctx: ToolContext, cursor: string | undefined): Promise<{ resources: ResourceListing[]; nextCursor?: string }>;
  templatesFor(plan: Plan): { resourceTemplates: ResourceTemplateListing[] };
  read(ctx: ToolContext, uri: string): Promise<{ contents: ResourceContents[] }>;
  /** Completion of a template's variable ({slug}), or null for a template this catalogue does not have. */
  complete(ctx: ToolContext, uriTemplate: string, typed: string): Promise<string[] | null>;
}

/**
 * No such resource for this principal: unknown, or another brand's (the same answer). One of a kind
 * beyond its plan (any article, a view) says which plan reads it: for any URI of that kind, so it
 * tells nothing of what exists (the AI-client walk read only "not found" where a tool names the plan).
 */
export class ResourceNotFound extends NotFound {
  constructor(
    readonly uri: string,
    beyond?: { needs: PaidPlan; has: Plan },
  ) {
    const plan = beyond
      ? `: reading it requires the ${planLabel(beyond.needs)} plan, and this account is on ${describePlan(beyond.has)}. To upgrade: ${planChangeHint(beyond.needs)}.`
      : "; resources/list shows the resources this credential can read.";
    super(`Resource not found: ${uri.slice(0, 200)}${plan}`, "resource_not_found");
  }
}

function notFound(uri: string): ResourceNotFound {
  return new ResourceNotFound(uri);
}

export function buildResourceCatalog(views: readonly ViewDef[]): ResourceCatalog {
  const viewByUri = new Map(views.map((v) => [v.uri, v]));
  return {
    views,
    async list(ctx, cursor) {
      // The views come first, on the first page; then the articles, newest first, paged.
      const first = cursor === undefined;
      const resources: ResourceListing[] = first
        ? views
            .filter((v) => planCovers(ctx.plan, v.plan))
            .map((v) => ({ uri: v.uri, name: v.name, title: v.title, description: v.description, mimeType: VIEW_MIME_TYPE, _meta: v.meta }))
        : [];
      if (!planCovers(ctx.plan, ARTICLES_PLAN)) return { resources };
      let page: Awaited<ReturnType<typeof listArticles>>;
      try {
        page = await listArticles(ctx.app.db, ctx.brand.id, { limit: PAGE, cursor });
      } catch (error) {
        if (error instanceof Invalid)
          throw new Invalid("cursor: pass back the nextCursor of a previous resources/list unchanged.", error.code);
        throw error;
      }
      resources.push(...page.articles.flatMap(articleListings));
      return page.next_cursor ? { resources, nextCursor: page.next_cursor } : { resources };
    },
    templatesFor: (plan) => ({ resourceTemplates: planCovers(plan, ARTICLES_PLAN) ? ARTICLE_TEMPLATES : [] }),
    async read(ctx, uri) {
      const view = viewByUri.get(uri);
      if (view) {
        if (!planCovers(ctx.plan, view.plan)) throw new ResourceNotFound(uri, { needs: view.plan, has: ctx.plan });
        return { contents: [{ uri, mimeType: VIEW_MIME_TYPE, text: await view.html(), _meta: view.meta }] };
      }
      if (!uri.startsWith(ARTICLE_SCHEME)) throw notFound(uri);
      if (!planCovers(ctx.plan, ARTICLES_PLAN)) throw new ResourceNotFound(uri, { needs: ARTICLES_PLAN, has: ctx.plan });
      const rest = uri.slice(ARTICLE_SCHEME.length);
      const html = rest.endsWith("/html");
      const slug = html ? rest.slice(0, -"/html".length) : rest;
      const article = /^[a-z0-9-]{1,200}$/.test(slug) ? await getArticleBySlug(ctx.app.db, ctx.brand.id, slug) : null;
      if (!article) throw notFound(uri);
      return {
        contents: [html ? { uri, mimeType: "text/html", text: article.html } : { uri, mimeType: "text/markdown", text: article.markdown }],
      };
    },
    async complete(ctx, uriTemplate, typed) {
      if (!ARTICLE_TEMPLATES.some((t) => t.uriTemplate === uriTemplate)) return null;
      return planCovers(ctx.plan, ARTICLES_PLAN) ? articleSlugs(typed, ctx) : Promise.resolve([]);
    },
  };
}

/** The MCP Apps extension's MIME type for a view (io.modelcontextprotocol/ui). */
export const VIEW_MIME_TYPE = "text/html;profile=mcp-app";

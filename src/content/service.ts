// Articles: drafts and published articles of one brand, their markdown source and the sanitized HTML
// rendered from it once, on save. Queries on the articles table live here only; every function takes
// the brand id (from a verified credential) first, and another brand's article is NotFound. A
// change the public site would show announces articlesChanged (the public content cache drops it).
import { and, desc, eq, lt, or, sql } from "drizzle-orm";
import { type AppContext } from "../context";
import { type Db } from "../db/client";
import { articles } from "../db/schema";
import { Conflict, Invalid, NotFound } from "../errors";
import { iso, isoOrNull, newId } from "../ids";
import { DEFAULT_LIMIT, decodeCursor, MAX_LIMIT, page } from "../paging";
import { getPrompt } from "../prompts/service";
import { type ArticleSource } from "./render";
import { renderArticleHtml } from "./renderer";
import { FALLBACK_SLUG, firstFreeSlug, isDerivedFrom, parseSlug, slugify } from "./slug";

export const MAX_MARKDOWN_BYTES = 200 * 1024;
export const MAX_TITLE = 200;
export const MAX_DESCRIPTION = 500;
/** The public list's cap (spec "Limits"). */
export const MAX_PUBLIC_ARTICLES = 500;

export type ArticleStatus = "draft" | "published";

/** An article in a list (CONTRACT §4 `list_articles`). */
export interface ArticleSummary {
  id: string;
  slug: string;
  title: string;
  description: string | null;
  status: ArticleStatus;
  /** First publication; kept when the article is unpublished, so a republish keeps its date. */
  published_at: string | null;
  created_at: string;
}

/** The whole record, as `get_article` and every write return it. */
export interface Article extends ArticleSummary {
  updated_at: string;
  prompt_id: string | null;
  markdown: string;
  html: string;
}

export interface ArticleInput {
  title?: string | null;
  markdown: string;
  description?: string | null;
  slug?: string | null;
  promptId?: string | null;
}

export interface ArticlePatch {
  title?: string | null;
  markdown?: string;
  description?: string | null;
  slug?: string | null;
}

type ArticleRow = typeof articles.$inferSelect;

// ---- input rules ---------------------------------------------------------------------------

export function parseTitle(value: string | null | undefined): string {
  const title = (value ?? "").replace(/\s+/g, " ").trim();
  if (title.length > MAX_TITLE) {
    throw new Invalid(`title: the title is ${title.length} characters; the limit is ${MAX_TITLE}.`, "invalid_title");
  }
  return title;
}

export function parseDescription(value: string | null | undefined): string | null {
  const description = (value ?? "").replace(/\s+/g, " ").trim();
  if (description.length > MAX_DESCRIPTION) {
    throw new Invalid(
      `description: the description is ${description.length} characters; the limit is ${MAX_DESCRIPTION} (it is the page's meta description).`,
      "invalid_description",
    );
  }
  return description === "" ? null : description;
}

export function parseMarkdown(value: string): string {
  const bytes = Buffer.byteLength(value, "utf8");
  if (bytes > MAX_MARKDOWN_BYTES) {
    throw new Invalid(
      `markdown: the article body is ${Math.ceil(bytes / 1024)} KB; the limit is ${MAX_MARKDOWN_BYTES / 1024} KB. Shorten it or split it into several articles.`,
      "markdown_too_large",
    );
  }
  if (value.trim() === "") throw new Invalid("markdown: the article body is empty; give it some text.", "invalid_markdown");
  return value;
}

// ---- views ---------------------------------------------------------------------------------

function summary(row: ArticleRow): ArticleSummary {
  return {
    id: row.id,
    slug: row.slug,
    title: row.title,
    description: row.description,
    status: row.status,
    published_at: isoOrNull(row.publishedAt),
    created_at: iso(row.createdAt),
  };
}

function full(row: ArticleRow): Article {
  return {
    ...summary(row),
    updated_at: iso(row.updatedAt),
    prompt_id: row.promptId,
    markdown: row.markdown,
    html: row.html,
  };
}

function findRow(db: Db, brandId: string, articleId: string): ArticleRow {
  const row = db.orm
    .select()
    .from(articles)
    .where(and(eq(articles.id, articleId), eq(articles.brandId, brandId)))
    .get();
  if (!row) throw new NotFound("Article not found: check article_id with list_articles.", "article_not_found");
  return row;
}

function slugTaken(db: Db, brandId: string, slug: string, exceptId?: string): boolean {
  const row = db.orm
    .select({ id: articles.id })
    .from(articles)
    .where(and(eq(articles.brandId, brandId), eq(articles.slug, slug)))
    .get();
  return row !== undefined && row.id !== exceptId;
}

function claimExplicitSlug(db: Db, brandId: string, slug: string, exceptId?: string): string {
  if (slugTaken(db, brandId, slug, exceptId)) {
    throw new Conflict(`slug: another article of this brand already uses "${slug}"; choose another slug.`, "slug_taken");
  }
  return slug;
}

// ---- reads ---------------------------------------------------------------------------------

export function getArticle(db: Db, brandId: string, articleId: string): Article {
  return full(findRow(db, brandId, articleId));
}

export interface ListArticlesOptions {
  status?: ArticleStatus;
  limit?: number;
  cursor?: string | null;
}

export interface ArticlePage {
  articles: ArticleSummary[];
  next_cursor: string | null;
}

/** Newest first (by creation); `cursor` is the `next_cursor` of the previous page. */
export function listArticles(db: Db, brandId: string, options: ListArticlesOptions = {}): ArticlePage {
  const limit = Math.min(Math.max(Math.trunc(options.limit ?? DEFAULT_LIMIT), 1), MAX_LIMIT);
  const after = decodeCursor(options.cursor ?? undefined, ["number", "string"] as const);
  const rows = db.orm
    .select()
    .from(articles)
    .where(
      and(
        eq(articles.brandId, brandId),
        options.status ? eq(articles.status, options.status) : undefined,
        after ? or(lt(articles.createdAt, after[0]), and(eq(articles.createdAt, after[0]), lt(articles.id, after[1]))) : undefined,
      ),
    )
    .orderBy(desc(articles.createdAt), desc(articles.id))
    .limit(limit + 1)
    .all();
  const { items, next } = page(rows, limit, (row) => [row.createdAt, row.id]);
  return { articles: items.map(summary), next_cursor: next };
}

/** A brand's published articles for its site: newest publication first, at most 500. */
export function listPublishedArticles(db: Db, brandId: string): ArticleRow[] {
  return db.orm
    .select()
    .from(articles)
    .where(and(eq(articles.brandId, brandId), eq(articles.status, "published")))
    .orderBy(desc(articles.publishedAt), desc(articles.id))
    .limit(MAX_PUBLIC_ARTICLES)
    .all();
}

// The public API asks for slugs that do not exist as often as a crawler likes: a prepared statement
// keeps that miss cheap (building the query with the ORM each time cost more than the rest of the request).
export function getPublishedArticleBySlug(db: Db, brandId: string, slug: string): ArticleRow | null {
  const bySlug = db.prepared("content.publishedBySlug", () =>
    db.orm
      .select()
      .from(articles)
      .where(
        and(eq(articles.brandId, sql.placeholder("brandId")), eq(articles.slug, sql.placeholder("slug")), eq(articles.status, "published")),
      )
      .prepare(),
  );
  return bySlug.get({ brandId, slug }) ?? null;
}

/** A draft or published article of the brand by its slug (the article resources' URIs), or null. */
export function getArticleBySlug(db: Db, brandId: string, slug: string): Article | null {
  const row = db.orm
    .select()
    .from(articles)
    .where(and(eq(articles.brandId, brandId), eq(articles.slug, slug)))
    .get();
  return row ? full(row) : null;
}

export type PublicArticleRow = ArticleRow;

// ---- writes --------------------------------------------------------------------------------

/** Creates a draft. The slug is the one given (it must be free) or derived from the title. */
export async function createArticle(db: Db, brandId: string, input: ArticleInput): Promise<Article> {
  const title = parseTitle(input.title);
  const markdown = parseMarkdown(input.markdown);
  const description = parseDescription(input.description);
  const explicitSlug = input.slug ? parseSlug(input.slug) : null;
  const html = await renderArticleHtml({ title, markdown }, brandId);
  const row = db.sqlite
    .transaction((): ArticleRow => {
      // Another brand's prompt is NotFound, like an unknown one.
      if (input.promptId) getPrompt(db, brandId, input.promptId);
      const slug = explicitSlug
        ? claimExplicitSlug(db, brandId, explicitSlug)
        : firstFreeSlug(slugify(title), (s) => slugTaken(db, brandId, s));
      const now = Date.now();
      const values: ArticleRow = {
        id: newId("art"),
        brandId,
        promptId: input.promptId ?? null,
        title,
        description,
        slug,
        markdown,
        html,
        status: "draft",
        publishedAt: null,
        createdAt: now,
        updatedAt: now,
      };
      db.orm.insert(articles).values(values).run();
      return values;
    })
    .immediate();
  return full(row);
}

/**
 * Changes the fields given. A published (or once published) article keeps its slug for ever: a
 * different slug is refused. A never-published draft whose slug was derived from its title follows
 * a new title.
 */
export async function updateArticle(
  app: Pick<AppContext, "db" | "events">,
  brandId: string,
  articleId: string,
  patch: ArticlePatch,
): Promise<Article> {
  const { db } = app;
  const title = patch.title !== undefined ? parseTitle(patch.title) : undefined;
  const markdown = patch.markdown !== undefined ? parseMarkdown(patch.markdown) : undefined;
  const description = patch.description !== undefined ? parseDescription(patch.description) : undefined;
  const explicitSlug = patch.slug ? parseSlug(patch.slug) : undefined;

  // The HTML is rendered (in the renderer's worker) before the write transaction, from the fields
  // the article will have. Should another write change the field this patch leaves alone meanwhile,
  // the transaction sees a different source and the render is done again.
  let rendered: Rendered | null = null;
  for (let attempt = 1; ; attempt++) {
    if (title !== undefined || markdown !== undefined) {
      const source = nextSource(findRow(db, brandId, articleId), title, markdown);
      if (source && !renderedFrom(rendered, source)) {
        rendered = { ...source, html: await renderArticleHtml(source, brandId) };
      }
    }
    const row = db.sqlite
      .transaction((): ArticleRow | null => {
        const current = findRow(db, brandId, articleId);
        const changes: Partial<ArticleRow> = {};
        if (title !== undefined && title !== current.title) changes.title = title;
        if (markdown !== undefined && markdown !== current.markdown) changes.markdown = markdown;
        if (description !== undefined && description !== current.description) changes.description = description;

        if (explicitSlug !== undefined && explicitSlug !== current.slug) {
          if (current.publishedAt !== null) {
            throw new Conflict(
              `slug: this article has been published as "${current.slug}" and its slug is fixed so that links to it keep working; leave slug out (or pass "${current.slug}").`,
              "slug_fixed",
            );
          }
          changes.slug = claimExplicitSlug(db, brandId, explicitSlug, current.id);
        } else if (
          explicitSlug === undefined &&
          changes.title !== undefined &&
          current.publishedAt === null &&
          isDerivedFrom(current.slug, current.title === "" ? FALLBACK_SLUG : slugify(current.title))
        ) {
          changes.slug = firstFreeSlug(slugify(changes.title), (s) => slugTaken(db, brandId, s, current.id));
        }

        const source = nextSource(current, title, markdown);
        if (source) {
          // Rendered from a source that has changed since: render again, outside the transaction.
          if (!renderedFrom(rendered, source)) return null;
          changes.html = rendered.html;
        }
        if (Object.keys(changes).length === 0) return current;
        changes.updatedAt = Date.now();
        return db.orm.update(articles).set(changes).where(eq(articles.id, current.id)).returning().get()!;
      })
      .immediate();
    if (row) {
      if (row.status === "published") app.events.emit("articlesChanged", { brandId });
      return full(row);
    }
    if (attempt === MAX_RENDER_ATTEMPTS) {
      throw new Conflict(
        "The article was changed by another request while this change was being saved; nothing was saved: try again.",
        "article_changed",
      );
    }
  }
}

const MAX_RENDER_ATTEMPTS = 3;

type Rendered = ArticleSource & { html: string };

function renderedFrom(rendered: Rendered | null, source: ArticleSource): rendered is Rendered {
  return rendered !== null && rendered.title === source.title && rendered.markdown === source.markdown;
}

/** The title and markdown an article will have after a patch, or null when neither changes. */
function nextSource(current: ArticleRow, title: string | undefined, markdown: string | undefined): ArticleSource | null {
  const next = { title: title ?? current.title, markdown: markdown ?? current.markdown };
  return next.title === current.title && next.markdown === current.markdown ? null : next;
}

/**
 * Puts the article on the brand's site. The first publication sets published_at for good; a
 * republish after an unpublish keeps it. Publishing a published article changes nothing.
 */
export function setArticlePublished(
  app: Pick<AppContext, "db" | "events">,
  brandId: string,
  articleId: string,
  published: boolean,
  /** When a first publication happened (ms); now unless told (the demo seeder publishes in the past). */
  at = Date.now(),
): Article {
  const { db } = app;
  const row = db.sqlite
    .transaction((): ArticleRow => {
      const current = findRow(db, brandId, articleId);
      const status: ArticleStatus = published ? "published" : "draft";
      if (current.status === status) return current;
      const now = Date.now();
      return db.orm
        .update(articles)
        .set({
          status,
          publishedAt: published ? sql`coalesce(${articles.publishedAt}, ${Math.min(at, now)})` : current.publishedAt,
          updatedAt: now,
        })
        .where(eq(articles.id, current.id))
        .returning()
        .get()!;
    })
    .immediate();
  app.events.emit("articlesChanged", { brandId });
  return full(row);
}

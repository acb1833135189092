// Articles: drafts and published articles of one brand, their markdown source and the sanitized HTML
// rendered from it once, on save. Queries on the articles table live here only; every function takes
// the brand id (from a verified credential) first, and another brand's article is NotFound. A
// change the public site would show announces articlesChanged (the public content cache drops it).
import { brandAccountId } from "../brands/service";
import { type AppContext } from "../context";
import { type Queries, type SqlParam } from "../db/queries";
import { type articles } from "../db/schema";
import { Conflict, Invalid, NotFound } from "../errors";
import { iso, isoOrNull, newId, otherRecordOf } from "../ids";
import { hasNothingVisible, labelLength } from "../labels";
import { DEFAULT_LIMIT, decodeCursor, MAX_LIMIT, page } from "../paging";
import { getPrompt, getPromptTexts } from "../prompts/service";
import { type ArticleSource } from "./render";
import { renderArticleHtml } from "./renderer";
import { RENDERER_VERSION } from "./renderer-version";
import { FALLBACK_SLUG, firstFreeSlug, isDerivedFrom, parseSlug, slugify } from "./slug";
import { withoutTitleHeading } from "./title-heading";

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
  /** The tracked prompt the article answers, or null. */
  prompt_id: string | null;
  /** The last change: update_article's expected_updated_at, without a get_article first. */
  updated_at: string;
}

/** The whole record, as `get_article` and every write return it. */
export interface Article extends ArticleSummary {
  /** The linked prompt's text (archived or not), or null when the article answers none. */
  prompt_text: string | null;
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
  /** The tracked prompt the article answers; null unlinks it. */
  promptId?: string | null;
  /**
   * The article's updated_at (epoch ms) as the writer last read it: when it has changed since
   * (another tab, an AI client), nothing is written (Conflict article_changed), so that no one's
   * saved work is replaced unseen.
   */
  expectedUpdatedAt?: number;
}

/** Conflict when the article changed since the writer read it (ArticlePatch.expectedUpdatedAt). */
function requireUnchanged(current: ArticleRow, expected: number | undefined): void {
  if (expected === undefined || current.updatedAt === expected) return;
  throw new Conflict(
    `The article was changed since it was read (it was last saved at ${new Date(current.updatedAt).toISOString()}), so nothing was written: read it again (get_article), apply the change to it and save that, or leave expected_updated_at out to replace it.`,
    "article_changed",
  );
}

// The columns the service reads (the renderer's version is rerender.ts's).
type ArticleRow = Omit<typeof articles.$inferSelect, "renderedBy">;

// ---- input rules ---------------------------------------------------------------------------

/** A title as readers are shown it: "Untitled" for none, and for one stored before invisible titles were refused. */
export function shownTitle(title: string): string {
  return hasNothingVisible(title) ? "Untitled" : title;
}

export function parseTitle(value: string | null | undefined): string {
  const title = (value ?? "").replace(/\s+/g, " ").trim();
  // Nothing a reader sees: no title, shown "Untitled" as an empty one is; such characters within a
  // visible title stay (an emoji's joiners, the ZWNJ of a Persian word).
  if (hasNothingVisible(title)) return "";
  // In characters, as every other name and text is counted (labelLength): an emoji is one.
  const length = labelLength(title);
  if (length > MAX_TITLE) {
    throw new Invalid(`title: the title is ${length} characters; the limit is ${MAX_TITLE}.`, "invalid_title");
  }
  return title;
}

export function parseDescription(value: string | null | undefined): string | null {
  const description = (value ?? "").replace(/\s+/g, " ").trim();
  const length = labelLength(description);
  if (length > MAX_DESCRIPTION) {
    throw new Invalid(
      `description: the description is ${length} characters; the limit is ${MAX_DESCRIPTION} (it is the page's meta description).`,
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
    prompt_id: row.promptId,
    updated_at: iso(row.updatedAt),
  };
}

/** The whole record; the linked prompt's text is read through the prompts' service unless given. */
async function full(db: Queries, row: ArticleRow, promptText?: string | null): Promise<Article> {
  const text =
    promptText !== undefined || row.promptId === null
      ? (promptText ?? null)
      : ((await getPromptTexts(db, row.brandId, [row.promptId])).get(row.promptId) ?? null);
  return {
    ...summary(row),
    prompt_text: text,
    markdown: row.markdown,
    html: row.html,
  };
}

// Every column, named as ArticleRow names them (quoted, so PostgreSQL keeps their case).
const ARTICLE_COLUMNS = `id, brand_id AS "brandId", prompt_id AS "promptId", title, description, slug, markdown, html, status,
  published_at AS "publishedAt", created_at AS "createdAt", updated_at AS "updatedAt"`;

/** The columns a patch may change, by ArticleRow field. */
const PATCH_COLUMNS = {
  title: "title",
  markdown: "markdown",
  description: "description",
  slug: "slug",
  promptId: "prompt_id",
  html: "html",
  updatedAt: "updated_at",
} as const;

type ArticleChanges = Partial<Pick<ArticleRow, keyof typeof PATCH_COLUMNS>>;

async function findRow(db: Queries, brandId: string, articleId: string): Promise<ArticleRow> {
  const row = await db.get<ArticleRow>(`SELECT ${ARTICLE_COLUMNS} FROM articles WHERE id = ? AND brand_id = ?`, [articleId, brandId]);
  if (!row) throw articleNotFound(articleId);
  return row;
}

/**
 * An article not found, saying what was given when it is another record's id or a slug (a model
 * passing either was told only "Article not found", the AI-client walk).
 */
function articleNotFound(given: string): NotFound {
  const other = otherRecordOf(given, "art");
  const shown = JSON.stringify(given.slice(0, 60));
  const what = other
    ? `: ${shown} is ${other.what}, and an article id looks like art_…`
    : !given.startsWith("art_") && /^[a-z0-9]+(?:-[a-z0-9]+)*$/.test(given)
      ? `: an article id looks like art_…, and ${shown} looks like a slug`
      : "";
  return new NotFound(`Article not found${what}; list_articles gives the brand's articles with their ids and slugs.`, "article_not_found");
}

async function slugTaken(db: Queries, brandId: string, slug: string, exceptId?: string): Promise<boolean> {
  const row = await db.get<{ id: string }>("SELECT id FROM articles WHERE brand_id = ? AND slug = ?", [brandId, slug]);
  return row !== undefined && row.id !== exceptId;
}

async function claimExplicitSlug(db: Queries, brandId: string, slug: string, exceptId?: string): Promise<string> {
  if (await slugTaken(db, brandId, slug, exceptId)) {
    throw new Conflict(`slug: another article of this brand already uses "${slug}"; choose another slug.`, "slug_taken");
  }
  return slug;
}

// ---- reads ---------------------------------------------------------------------------------

export async function getArticle(db: Queries, brandId: string, articleId: string): Promise<Article> {
  return full(db, await findRow(db, brandId, articleId));
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
export async function listArticles(db: Queries, brandId: string, options: ListArticlesOptions = {}): Promise<ArticlePage> {
  const limit = Math.min(Math.max(Math.trunc(options.limit ?? DEFAULT_LIMIT), 1), MAX_LIMIT);
  const after = decodeCursor(options.cursor ?? undefined, ["number", "string"] as const);
  const terms = ["brand_id = ?"];
  const params: SqlParam[] = [brandId];
  if (options.status) {
    terms.push("status = ?");
    params.push(options.status);
  }
  if (after) {
    // created_at's bound alone first: the index is then searched from there in order (as in listAnswers).
    terms.push("created_at <= ? AND (created_at < ? OR id < ?)");
    params.push(after[0], after[0], after[1]);
  }
  const rows = await db.all<ArticleRow>(
    `SELECT ${ARTICLE_COLUMNS} FROM articles WHERE ${terms.join(" AND ")} ORDER BY created_at DESC, id DESC LIMIT ?`,
    [...params, limit + 1],
  );
  const { items, next } = page(rows, limit, (row) => [row.createdAt, row.id]);
  return { articles: items.map(summary), next_cursor: next };
}

/** A brand's published articles for its site: newest publication first, at most 500. */
export async function listPublishedArticles(db: Queries, brandId: string): Promise<ArticleRow[]> {
  return db.all<ArticleRow>(
    `SELECT ${ARTICLE_COLUMNS} FROM articles WHERE brand_id = ? AND status = 'published' ORDER BY published_at DESC, id DESC LIMIT ?`,
    [brandId, MAX_PUBLIC_ARTICLES],
  );
}

// The public API asks for slugs that do not exist as often as a crawler likes: the connection keeps
// this text prepared, so that a miss stays cheap.
export async function getPublishedArticleBySlug(db: Queries, brandId: string, slug: string): Promise<ArticleRow | null> {
  const row = await db.get<ArticleRow>(`SELECT ${ARTICLE_COLUMNS} FROM articles WHERE brand_id = ? AND slug = ? AND status = 'published'`, [
    brandId,
    slug,
  ]);
  return row ?? null;
}

/** A draft or published article of the brand by its slug (the article resources' URIs), or null. */
export async function getArticleBySlug(db: Queries, brandId: string, slug: string): Promise<Article | null> {
  const row = await db.get<ArticleRow>(`SELECT ${ARTICLE_COLUMNS} FROM articles WHERE brand_id = ? AND slug = ?`, [brandId, slug]);
  return row ? full(db, row) : null;
}

export type PublicArticleRow = ArticleRow;

// ---- writes --------------------------------------------------------------------------------

/**
 * Creates a draft. The slug is the one given (it must be free) or derived from the title. `at`: when
 * it was written, now unless told (the demo seeder's article was written before its publication).
 */
export async function createArticle(db: Queries, brandId: string, input: ArticleInput, at?: number): Promise<Article> {
  const title = parseTitle(input.title);
  const markdown = parseMarkdown(input.markdown);
  const description = parseDescription(input.description);
  const explicitSlug = input.slug ? parseSlug(input.slug) : null;
  const html = await renderArticleHtml({ title, markdown }, await brandAccountId(db, brandId));
  let promptText: string | null = null;
  const row = await db.transaction(async (tx): Promise<ArticleRow> => {
    // Another brand's prompt is NotFound, like an unknown one.
    if (input.promptId) promptText = (await getPrompt(tx, brandId, input.promptId)).text;
    const slug = explicitSlug
      ? await claimExplicitSlug(tx, brandId, explicitSlug)
      : await firstFreeSlug(slugify(title), (s) => slugTaken(tx, brandId, s));
    const now = Math.min(at ?? Date.now(), Date.now());
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
    await tx.run(
      `INSERT INTO articles (id, brand_id, prompt_id, title, description, slug, markdown, html, rendered_by, status, published_at, created_at, updated_at)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ${RENDERER_VERSION}, ?, ?, ?, ?)`,
      [
        values.id,
        values.brandId,
        values.promptId,
        values.title,
        values.description,
        values.slug,
        values.markdown,
        values.html,
        values.status,
        values.publishedAt,
        values.createdAt,
        values.updatedAt,
      ],
    );
    return values;
  });
  return full(db, row, promptText);
}

/**
 * Changes the fields given. A published (or once published) article keeps its slug for ever: a
 * different slug is refused. A never-published draft whose slug was derived from its title follows
 * a new title. The prompt it answers must be one of the brand's (null unlinks it).
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
      const read = await findRow(db, brandId, articleId);
      // Refused before the render, which would be wasted.
      requireUnchanged(read, patch.expectedUpdatedAt);
      const source = nextSource(read, title, markdown);
      if (source && !renderedFrom(rendered, source)) {
        rendered = { ...source, html: await renderArticleHtml(source, await brandAccountId(db, brandId)) };
      }
    }
    const row = await db.transaction(async (tx): Promise<ArticleRow | null> => {
      const current = await findRow(tx, brandId, articleId);
      requireUnchanged(current, patch.expectedUpdatedAt);
      const changes: ArticleChanges = {};
      if (title !== undefined && title !== current.title) changes.title = title;
      if (markdown !== undefined && markdown !== current.markdown) changes.markdown = markdown;
      if (description !== undefined && description !== current.description) changes.description = description;
      if (patch.promptId !== undefined && patch.promptId !== current.promptId) {
        // Another brand's prompt is NotFound, like an unknown one; the transaction then writes nothing.
        if (patch.promptId !== null) await getPrompt(tx, brandId, patch.promptId);
        changes.promptId = patch.promptId;
      }

      if (explicitSlug !== undefined && explicitSlug !== current.slug) {
        if (current.publishedAt !== null) {
          throw new Conflict(
            `slug: this article has been published as "${current.slug}" and its slug is fixed so that links to it keep working; leave slug out (or pass "${current.slug}").`,
            "slug_fixed",
          );
        }
        changes.slug = await claimExplicitSlug(tx, brandId, explicitSlug, current.id);
      } else if (
        explicitSlug === undefined &&
        changes.title !== undefined &&
        current.publishedAt === null &&
        isDerivedFrom(current.slug, current.title === "" ? FALLBACK_SLUG : slugify(current.title))
      ) {
        changes.slug = await firstFreeSlug(slugify(changes.title), (s) => slugTaken(tx, brandId, s, current.id));
      }

      const source = nextSource(current, title, markdown);
      if (source) {
        // Rendered from a source that has changed since: render again, outside the transaction.
        if (!renderedFrom(rendered, source)) return null;
        changes.html = rendered.html;
        if (source.markdown !== current.markdown) changes.markdown = source.markdown;
      }
      if (Object.keys(changes).length === 0) return current;
      changes.updatedAt = Date.now();
      const fields = Object.keys(changes) as Array<keyof ArticleChanges>;
      const version = changes.html !== undefined ? `, rendered_by = ${RENDERER_VERSION}` : "";
      const updated = await tx.get<ArticleRow>(
        `UPDATE articles SET ${fields.map((field) => `${PATCH_COLUMNS[field]} = ?`).join(", ")}${version} WHERE id = ? RETURNING ${ARTICLE_COLUMNS}`,
        [...fields.map((field) => changes[field] ?? null), current.id],
      );
      return updated!;
    });
    if (row) {
      if (row.status === "published") app.events.emit("articlesChanged", { brandId });
      return full(db, row);
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
  // Renamed without a new body: a leading heading that repeated the old title (the site hid it) is
  // dropped, or it would show under the new title, the article having two.
  const renamed = markdown === undefined && title !== undefined && title !== current.title;
  const next = {
    title: title ?? current.title,
    markdown: markdown ?? (renamed ? withoutTitleHeading(current.markdown, current.title) : current.markdown),
  };
  return next.title === current.title && next.markdown === current.markdown ? null : next;
}

/**
 * Puts the article on the brand's site. The first publication sets published_at for good; a
 * republish after an unpublish keeps it. Publishing a published article changes nothing.
 */
export async function setArticlePublished(
  app: Pick<AppContext, "db" | "events">,
  brandId: string,
  articleId: string,
  published: boolean,
  /** When a first publication happened (ms); now unless told (the demo seeder publishes in the past). */
  at = Date.now(),
): Promise<Article> {
  const { db } = app;
  const row = await db.transaction(async (tx): Promise<ArticleRow> => {
    const current = await findRow(tx, brandId, articleId);
    const status: ArticleStatus = published ? "published" : "draft";
    if (current.status === status) return current;
    // The site would show a title over nothing: a body that was only markup the sanitizer removes
    // (a script, a form, a data: image) was published as "html": "".
    if (published && !showsAnything(current.html)) {
      throw new Invalid(
        "This article shows nothing once sanitized: its body held only markup a site cannot show (a script, a form, an image that is not http(s)). Write its text, then publish it.",
        "article_empty",
      );
    }
    const now = Date.now();
    const updated = await tx.get<ArticleRow>(
      `UPDATE articles SET status = ?, published_at = ${published ? "coalesce(published_at, ?)" : "?"}, updated_at = ? WHERE id = ? RETURNING ${ARTICLE_COLUMNS}`,
      [status, published ? Math.min(at, now) : current.publishedAt, now, current.id],
    );
    return updated!;
  });
  app.events.emit("articlesChanged", { brandId });
  return full(db, row);
}

/** Whether sanitized HTML shows a reader anything: text, or an image (publish refuses one that does not). */
export function showsAnything(html: string): boolean {
  return (
    /<img\s[^>]*\bsrc=/i.test(html) ||
    html
      .replace(/<[^>]*>/g, "")
      .replace(/&nbsp;|&#160;/g, " ")
      .trim() !== ""
  );
}

/**
 * Deletes a brand's article (a junk draft, an article no longer wanted); a published one leaves the
 * brand's site at once (its address answers 404). Its slug is free again. NotFound for another
 * brand's or an unknown article.
 */
export async function deleteArticle(
  app: Pick<AppContext, "db" | "events">,
  brandId: string,
  articleId: string,
): Promise<{ id: string; title: string; slug: string; was_published: boolean }> {
  const row = await app.db.transaction(async (tx): Promise<ArticleRow> => {
    const current = await findRow(tx, brandId, articleId);
    await tx.run("DELETE FROM articles WHERE id = ?", [current.id]);
    return current;
  });
  app.events.emit("articlesChanged", { brandId });
  return { id: row.id, title: row.title, slug: row.slug, was_published: row.status === "published" };
}

// Content tools (CONTRACT §4, Autopilot): draft articles (written by the assistant, or by the
// configured writer model), revise them, and publish them to the brand's own site, where the public
// content API serves them.
import { z } from "zod";
import { publishArticle, unpublishArticle } from "../../content/publishing";
import {
  createArticle,
  getArticle,
  listArticles,
  MAX_DESCRIPTION,
  MAX_MARKDOWN_BYTES,
  MAX_TITLE,
  updateArticle,
} from "../../content/service";
import { MAX_SLUG } from "../../content/slug";
import { ARTICLE_LENGTHS, generateArticle } from "../../content/writer";
import { defineTool, type ToolAnnotations } from "../registry";
import { articleLinks } from "../resources";
import { PUBLISH_VIEW } from "../view-uris";
import {
  ASKS_MODELS,
  CREATES_EACH_TIME,
  cursor,
  DELETES,
  idOf,
  LANGUAGE_CODE,
  LANGUAGE_CODE_RULE,
  limit,
  nextCursor,
  READ_ONLY,
  timestamp,
  UPDATES,
} from "./common";

const status = z.enum(["draft", "published"]);

const summaryFields = {
  id: z.string(),
  slug: z.string().describe("URL segment on the brand's site; fixed once the article has been published"),
  title: z.string().describe('empty when the article has none (the public API shows "Untitled")'),
  description: z.string().nullable().describe("meta description, or null"),
  status,
  published_at: timestamp.nullable().describe("first publication (kept when unpublished), or null if never published"),
  created_at: timestamp,
  prompt_id: z.string().nullable().describe("the tracked prompt the article answers, or null"),
  updated_at: timestamp.describe("the last change (update_article's expected_updated_at)"),
};

const articleSummary = z.object(summaryFields);

const article = z.object({
  ...summaryFields,
  prompt_text: z.string().nullable().describe("that prompt's text, or null"),
  markdown: z.string().describe("the source"),
  html: z.string().describe("the sanitized HTML served to the site, rendered from the markdown on save"),
});

const articleId = idOf("article", "list_articles");
// The service counts characters (an emoji is one); zod counts UTF-16 units, up to two a character.
// The JSON schema says the service's limit (its maxLength counts characters): it said twice that.
const title = z
  .string()
  .max(MAX_TITLE * 2)
  .meta({ maxLength: MAX_TITLE })
  .describe(`The article's title, up to ${MAX_TITLE} characters.`);
const markdown = z
  .string()
  .min(1)
  .describe(
    `The body in Markdown (GitHub-flavoured: tables, lists), up to ${MAX_MARKDOWN_BYTES / 1024} KB. A leading "# Title" equal to the title is dropped from the HTML, since the site shows the title itself. Raw HTML is sanitized: scripts, event handlers, iframes, forms, styles and non-http(s) links are removed.`,
  );
const description = z
  .string()
  .max(MAX_DESCRIPTION * 2)
  .meta({ maxLength: MAX_DESCRIPTION })
  .nullable()
  .describe(`Meta description for search engines and link previews, up to ${MAX_DESCRIPTION} characters; null removes it.`);
const slug = z.string().min(1).max(MAX_SLUG);
const SLUG_FORM = 'URL segment: lowercase letters, digits and hyphens, such as "best-crm-for-startups".';

// Publishing changes what the brand's public site shows: not destructive (unpublish undoes it), but
// not read-only either. Unpublishing removes a public page: clients may want to confirm it.
/** Puts the article on the brand's public site: the world outside Spyglass reads it (open world). */
const PUBLISHES: ToolAnnotations = { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true };
/** Takes the article off the public site (open world too). */
const UNPUBLISHES: ToolAnnotations = { ...DELETES, openWorldHint: true };

const createArticleTool = defineTool({
  name: "create_article",
  title: "Save an article draft",
  description:
    "Use to save an article you have written (in Markdown) as a draft of the brand, for example to answer a prompt where the brand is missing (see get_content_gaps). The HTML is rendered and sanitized once, on save. Returns the draft with its slug; publish it with publish_to_site.",
  input: z.strictObject({
    title: title.optional(),
    markdown,
    description: description.optional(),
    slug: slug.optional().describe(`${SLUG_FORM} Default: derived from the title (with -2, -3… when taken).`),
    prompt_id: idOf("prompt", "list_prompts or get_content_gaps").optional().describe("The tracked prompt this article answers."),
  }),
  output: z.object({ article }),
  annotations: CREATES_EACH_TIME,
  plan: "autopilot",
  links: (output) => articleLinks(output.article),
  handler: async (input, ctx) => ({
    article: await createArticle(ctx.app.db, ctx.brand.id, {
      title: input.title,
      markdown: input.markdown,
      description: input.description,
      slug: input.slug,
      promptId: input.prompt_id,
    }),
  }),
});

const generateArticleTool = defineTool({
  name: "generate_article",
  title: "Draft an article with the writer model",
  description:
    "Use to have the server's writer model draft an article for a prompt where the brand is missing (prompt_id, from get_content_gaps or list_prompts) or on a topic. The brief is built from the brand's data: the prompt, the competitors the AI engines name for it, the domains they cite, and the brand's profile. Saves and returns a draft to review (get_article, update_article) before publish_to_site. Needs a [writer] model in the server's config; without one, write the article yourself and use create_article.",
  input: z.strictObject({
    prompt_id: idOf("prompt", "list_prompts or get_content_gaps").optional().describe("The tracked prompt to answer."),
    topic: z.string().min(3).max(300).optional().describe("A topic, instead of (or to narrow) a prompt."),
    title: title.optional().describe("Use this title instead of the writer's."),
    tone: z.string().min(1).max(100).optional().describe('For example "friendly", "technical", "formal".'),
    length: z.enum(ARTICLE_LENGTHS).optional().describe("short (~600 words), medium (~1,200, the default) or long (~2,000)."),
    language: z
      .string()
      .max(35)
      .regex(LANGUAGE_CODE, LANGUAGE_CODE_RULE)
      .optional()
      .describe("Language to write in, such as en, de or pt-BR (default: the prompt's)."),
  }),
  output: z.object({ article }),
  annotations: ASKS_MODELS,
  plan: "autopilot",
  links: (output) => articleLinks(output.article),
  handler: async (input, ctx) => ({
    article: await generateArticle(ctx.app, ctx.brand.id, {
      promptId: input.prompt_id,
      topic: input.topic,
      title: input.title,
      tone: input.tone,
      length: input.length,
      language: input.language,
    }),
  }),
});

const listArticlesTool = defineTool({
  name: "list_articles",
  title: "List articles",
  description:
    "Use to see the brand's articles, newest first: drafts and those published on its site (filter with status). Returns each article's id, slug, title, description, status, dates and the prompt it answers (prompt_id), without bodies (get_article has them), paged with cursor.",
  input: z.strictObject({ status: status.optional().describe("Only drafts, or only published articles."), limit, cursor }),
  output: z.object({ articles: z.array(articleSummary), next_cursor: nextCursor }),
  annotations: READ_ONLY,
  plan: "autopilot",
  links: (output) => output.articles.flatMap(articleLinks),
  handler: (input, ctx) => listArticles(ctx.app.db, ctx.brand.id, { status: input.status, limit: input.limit, cursor: input.cursor }),
});

const getArticleTool = defineTool({
  name: "get_article",
  title: "Read an article",
  description: "Use to read one article of the brand in full: its Markdown source and the sanitized HTML its site receives.",
  input: z.strictObject({ article_id: articleId }),
  output: z.object({ article }),
  annotations: READ_ONLY,
  plan: "autopilot",
  view: PUBLISH_VIEW,
  links: (output) => articleLinks(output.article),
  handler: async (input, ctx) => ({ article: await getArticle(ctx.app.db, ctx.brand.id, input.article_id) }),
});

const updateArticleTool = defineTool({
  name: "update_article",
  title: "Revise an article",
  description:
    "Use to change an article's title, Markdown body, description or slug, or the tracked prompt it answers (prompt_id, which get_article_impact measures it against; null unlinks it). A published article stays published and its site shows the change at once; its slug is fixed (links to it must keep working), so a different slug is refused. Returns the article as it now stands.",
  input: z.strictObject({
    article_id: articleId,
    title: title.optional(),
    markdown: markdown.optional(),
    description: description.optional(),
    slug: slug.optional().describe(`${SLUG_FORM} Fixed once the article has been published.`),
    prompt_id: idOf("prompt", "list_prompts or get_content_gaps")
      .nullable()
      .optional()
      .describe("The tracked prompt this article answers; null unlinks it."),
    expected_updated_at: z
      .string()
      .datetime({ offset: true, message: "must be the article's updated_at as read (ISO 8601, such as 2026-11-27T18:12:38.279Z)" })
      .optional()
      .describe(
        "The article's updated_at as you read it (get_article or list_articles): if someone has saved it since, nothing is written and the call fails with a sentence saying so and when it was last saved, so that their edit is not lost. Recommended when revising an article a person may be editing.",
      ),
  }),
  output: z.object({ article }),
  annotations: UPDATES,
  plan: "autopilot",
  links: (output) => articleLinks(output.article),
  handler: async (input, ctx) => ({
    article: await updateArticle(ctx.app, ctx.brand.id, input.article_id, {
      title: input.title,
      markdown: input.markdown,
      description: input.description,
      slug: input.slug,
      promptId: input.prompt_id,
      expectedUpdatedAt: input.expected_updated_at === undefined ? undefined : Date.parse(input.expected_updated_at),
    }),
  }),
});

const publishToSiteTool = defineTool({
  name: "publish_to_site",
  title: "Publish an article to the brand's site",
  description:
    "Use when an article is ready: it becomes readable at once through the public content API that the brand's site reads with its site key (edge caches may take up to a minute). Its slug is fixed from then on. Publishing a published article changes nothing. Returns the published article.",
  input: z.strictObject({ article_id: articleId }),
  output: z.object({ article }),
  annotations: PUBLISHES,
  plan: "autopilot",
  view: PUBLISH_VIEW,
  links: (output) => articleLinks(output.article),
  handler: async (input, ctx) => ({ article: await publishArticle(ctx.app, ctx.brand.id, input.article_id) }),
});

const unpublishArticleTool = defineTool({
  name: "unpublish_article",
  title: "Take an article off the brand's site",
  description:
    "Use to remove a published article from the brand's site: it is gone from the public content API at once and becomes a draft again. Its slug and first publication date are kept for a later publish_to_site. Returns the article.",
  input: z.strictObject({ article_id: articleId }),
  output: z.object({ article }),
  annotations: UNPUBLISHES,
  plan: "autopilot",
  links: (output) => articleLinks(output.article),
  handler: async (input, ctx) => ({ article: await unpublishArticle(ctx.app, ctx.brand.id, input.article_id) }),
});

export const contentTools = [
  createArticleTool,
  generateArticleTool,
  listArticlesTool,
  getArticleTool,
  updateArticleTool,
  publishToSiteTool,
  unpublishArticleTool,
] as const;

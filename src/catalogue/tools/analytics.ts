// Visibility analytics tools (CONTRACT §4): METRICS.md figures over stored answers, for the key's brand.
import { z } from "zod";
import { planCovers } from "../../accounts/plans";
import { getAnswer, listAnswers, MAX_TEXT } from "../../analytics/answers";
import { decodeOffset, encodeOffset, MAX_DAYS, resolveFilter } from "../../analytics/filters";
import { articleImpact, DEFAULT_WINDOW_DAYS, MAX_WINDOW_DAYS } from "../../analytics/impact";
import { PERIOD_NOTE_DESCRIPTION, periodNote } from "../../analytics/notes";
import { contentGaps, promptPerformance } from "../../analytics/prompts";
import { searchQueries } from "../../analytics/search";
import { topSources } from "../../analytics/sources";
import { competitorRanking, MAX_DAY_POINTS, visibilityOverview, visibilityTrend } from "../../analytics/visibility";
import { getArticle, listPublishedArticles } from "../../content/service";
import { ANSWER_STATUSES } from "../../db/values";
import { defineTool } from "../registry";
import { ARTICLES_PLAN, articleLinks } from "../resources";
import { OVERVIEW_VIEW, RANKING_VIEW, TREND_VIEW } from "../view-uris";
import { cursor, idOf, nextCursor, pageLimit, READ_ONLY } from "./common";

/**
 * The longest period whose trend is daily unless a day interval is asked for: a point is some 300
 * bytes, so a year of days (400 points, 130 KB) is more than an AI client takes in one result, where
 * its weeks are a seventh of that.
 */
const DAILY_UP_TO_DAYS = 92;

const date = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, "must be a date as YYYY-MM-DD, such as 2025-01-31");
const filterInput = {
  start_date: date.optional().describe("First day (UTC, inclusive). Default: 29 days before end_date."),
  end_date: date.optional().describe(`Last day (UTC, inclusive). Default: today. A period covers at most ${MAX_DAYS} days.`),
  engine: z.string().min(1).max(64).optional().describe("Only this engine id (see get_tracking_status)."),
  tag: z.string().min(1).max(100).optional().describe("Only prompts with this tag (name or id)."),
  prompt_id: z.string().min(1).max(64).optional().describe("Only this prompt (id from list_prompts)."),
};

const rate = z
  .object({
    rate: z.number().nullable().describe("successes ÷ n; null when n is 0"),
    successes: z.number().int(),
    n: z.number().int(),
    low: z.number().nullable().describe("Wilson 95% interval, low"),
    high: z.number().nullable().describe("Wilson 95% interval, high"),
  })
  .meta({ id: "rate" });
const periodRate = rate
  .extend({
    previous: rate,
    change_pp: z.number().nullable().describe("change from the previous period in percentage points"),
    within_noise: z.boolean().nullable().describe("the two 95% intervals overlap"),
  })
  .meta({ id: "period_rate" });
const mean = z.object({ value: z.number().nullable(), n: z.number().int() }).meta({ id: "mean" });
// A mean's interval is Student t's (null below 2 values); the tools' descriptions say so.
const meanInterval = mean.extend({ low: z.number().nullable(), high: z.number().nullable() }).meta({ id: "mean_interval" });
const periodMean = meanInterval
  .extend({ previous: meanInterval, change: z.number().nullable(), within_noise: z.boolean().nullable() })
  .meta({ id: "period_mean" });
const filterOut = z.object({
  start_date: z.string(),
  end_date: z.string(),
  days: z.number().int(),
  previous_start_date: z.string(),
  previous_end_date: z.string(),
  engine: z.string().nullable(),
  tag: z.string().nullable(),
  prompt_id: z.string().nullable(),
});
const figures = {
  answers: z.object({ total: z.number().int(), valid: z.number().int(), no_answer: z.number().int() }),
  visibility: periodRate,
  share_of_voice: periodRate,
  avg_position: periodMean.extend({ top1_rate: periodRate, top3_rate: periodRate }),
  sentiment: periodMean,
  citation_rate: periodRate,
  prompt_coverage: periodRate,
  no_answer_rate: periodRate,
  retrieval_rate: periodRate.describe(
    "valid answers whose web search retrieved (or whose provider cited) a URL on the brand's domain ÷ valid answers; beside the METRICS figures, which stay on cited sources",
  ),
};

const getVisibilityOverview = defineTool({
  name: "get_visibility_overview",
  title: "Visibility overview",
  description:
    "Use to answer 'how visible is the brand in AI answers?' (the figures to start from). Returns, for the period (default: last 30 days) and its previous period of equal length: visibility, share of voice, average position with top-1/top-3 rates, sentiment, citation rate, prompt coverage, no-answer rate and retrieval rate (valid answers whose web search retrieved, or whose provider cited, a URL on the brand's domain) — each rate with n, a Wilson 95% interval, the change in points and within_noise, and the two means (position, sentiment) with a Student t 95% interval (its variance at least step² ÷ (n + 1): a place, or 0.2 of sentiment), the change and within_noise — overall and by_engine (each engine with its own denominators). Visibility = valid (ok) answers mentioning the brand ÷ valid answers; share of voice = the brand's mentions ÷ all roster mentions (the roster: the brand and its tracked competitors); answers that could not be read count only in no_answer_rate.",
  input: z.strictObject(filterInput),
  output: z.object({
    filter: filterOut,
    ...figures,
    by_engine: z.array(z.object({ engine: z.string(), label: z.string(), ...figures })),
    note: z
      .string()
      .nullable()
      .describe(
        "when the period has no answer at all: why (none stored yet, or the days that have answers, with today's date); while the stored answers are analysed again after a roster change: that the figures are not settled yet",
      ),
  }),
  annotations: READ_ONLY,
  plan: "visibility",
  view: OVERVIEW_VIEW,
  handler: async (input, ctx) => await visibilityOverview(ctx.app, await resolveFilter(ctx.app, ctx.brand.id, input)),
});

const getVisibilityTrend = defineTool({
  name: "get_visibility_trend",
  title: "Visibility trend",
  description:
    "Use to see how visibility, share of voice and average position move over time. Returns one point per UTC day or ISO week (interval) in the period, with its weekday and the days it covers, each rate with n and its 95% interval, and visibility's change from the previous point with within_noise (to tell a real drop from noise); days without answers have n = 0.",
  input: z.strictObject({
    ...filterInput,
    interval: z
      .enum(["day", "week"])
      .optional()
      .describe(
        `day (a period of at most ${MAX_DAY_POINTS} days) or week; default: day for a period of up to ${DAILY_UP_TO_DAYS} days, week for a longer one (a year of days is some 130 KB)`,
      ),
  }),
  output: z.object({
    filter: filterOut,
    interval: z.enum(["day", "week"]),
    points: z.array(
      z.object({
        date: z.string(),
        weekday: z.string().describe("the weekday of date (UTC)"),
        days: z.number().int().describe("days of the period the point covers (a partial first or last week has fewer than 7)"),
        visibility: rate,
        visibility_change: z
          .object({ change_pp: z.number().nullable(), within_noise: z.boolean().nullable() })
          .describe(
            "from the previous point: the change in points, and whether the two intervals overlap (the first point: from the day or week before the period; null when either has no valid answer)",
          ),
        share_of_voice: rate,
        avg_position: mean,
        answers: z.object({ total: z.number().int(), valid: z.number().int() }),
      }),
    ),
    note: z.string().nullable().describe(PERIOD_NOTE_DESCRIPTION),
  }),
  annotations: READ_ONLY,
  plan: "visibility",
  view: TREND_VIEW,
  handler: async (input, ctx) => {
    const filter = await resolveFilter(ctx.app, ctx.brand.id, input);
    return await visibilityTrend(ctx.app, filter, input.interval ?? (filter.period.days > DAILY_UP_TO_DAYS ? "week" : "day"));
  },
});

const getCompetitorRanking = defineTool({
  name: "get_competitor_ranking",
  title: "Competitor ranking",
  description:
    "Use to compare the brand with its tracked competitors on the same answers, and to see who is gaining or losing. Returns the roster ranked by visibility, each with visibility, share of voice, average position (and top-1 rate) and sentiment, with n and 95% intervals (Wilson for rates, Student t for the means, their variance at least step² ÷ (n + 1)), the previous period of equal length, the change (change_pp for rates) and within_noise (true: the change may be noise).",
  input: z.strictObject(filterInput),
  output: z.object({
    filter: filterOut,
    valid_answers: z.number().int(),
    ranking: z.array(
      z.object({
        id: z.string(),
        name: z.string(),
        is_brand: z.boolean(),
        visibility: periodRate,
        share_of_voice: periodRate,
        avg_position: periodMean.extend({ top1_rate: periodRate }),
        sentiment: periodMean,
      }),
    ),
    note: z.string().nullable().describe(PERIOD_NOTE_DESCRIPTION),
  }),
  annotations: READ_ONLY,
  plan: "visibility",
  view: RANKING_VIEW,
  handler: async (input, ctx) => await competitorRanking(ctx.app, await resolveFilter(ctx.app, ctx.brand.id, input)),
});

const getPromptPerformance = defineTool({
  name: "get_prompt_performance",
  title: "Prompt performance",
  description:
    "Use to see which tracked prompts the brand wins or loses. Returns prompts with visibility (n, 95% interval), average position, answer counts and the competitor mentioned most, ordered by visibility (order: visibility_desc, the default, or visibility_asc), paged. A prompt with no answer in the period (one added since) is not listed.",
  input: z.strictObject({
    ...filterInput,
    order: z
      .enum(["visibility_desc", "visibility_asc"])
      .default("visibility_desc")
      .describe("visibility_desc: the best prompts first; visibility_asc: the worst first."),
    limit: pageLimit(20),
    cursor,
  }),
  output: z.object({
    filter: filterOut,
    prompts: z.array(
      z.object({
        id: z.string(),
        text: z.string(),
        archived: z
          .boolean()
          .describe(
            "no longer asked (delete_prompt archived it; create_prompts with its text tracks it again): its answers of the period still count",
          ),
        visibility: rate,
        avg_position: mean,
        answers: z.object({ total: z.number().int(), valid: z.number().int() }),
        top_competitor: z.object({ id: z.string(), name: z.string(), answers: z.number().int() }).nullable(),
      }),
    ),
    next_cursor: nextCursor,
    note: z.string().nullable().describe(PERIOD_NOTE_DESCRIPTION),
  }),
  annotations: READ_ONLY,
  plan: "visibility",
  handler: async (input, ctx) =>
    await promptPerformance(ctx.app, await resolveFilter(ctx.app, ctx.brand.id, input), {
      limit: input.limit,
      offset: decodeOffset(input.cursor),
      order: input.order,
    }),
});

const getTopSources = defineTool({
  name: "get_top_sources",
  title: "Top cited sources",
  description:
    "Use to learn which websites the AI engines cite (where to get covered). Returns sources by registrable domain or by URL (level), most cited first, with citation_share of all citations, answers citing them, whether the source is the brand's own site (owned) and which competitor's site it is (competitor).",
  input: z.strictObject({
    ...filterInput,
    level: z.enum(["domain", "url"]).default("domain").describe("domain: sources by site (g2.com); url: by page."),
    limit: pageLimit(20),
    cursor,
  }),
  output: z.object({
    filter: filterOut,
    level: z.enum(["domain", "url"]),
    total_citations: z.number().int(),
    valid_answers: z.number().int(),
    sources: z.array(
      z.object({
        domain: z.string(),
        url: z.string().optional(),
        citations: z.number().int(),
        citation_share: rate,
        answers: z.number().int(),
        answer_rate: rate,
        owned: z.boolean(),
        competitor: z
          .object({ id: z.string(), name: z.string() })
          .nullable()
          .describe("The competitor whose site this is (one of its domains on the roster), or null."),
      }),
    ),
    next_cursor: nextCursor,
    note: z.string().nullable().describe(PERIOD_NOTE_DESCRIPTION),
  }),
  annotations: READ_ONLY,
  plan: "visibility",
  handler: async (input, ctx) => {
    const filter = await resolveFilter(ctx.app, ctx.brand.id, input);
    const offset = decodeOffset(input.cursor);
    const result = await topSources(ctx.app, filter, { level: input.level, limit: input.limit, offset });
    return { ...result, note: await periodNote(ctx.app, filter, result.sources.length === 0 && offset === 0) };
  },
});

const getContentGaps = defineTool({
  name: "get_content_gaps",
  title: "Content gaps",
  description:
    "Use to find what to write next. A gap is a prompt where competitors are mentioned in some valid answer of the period and the brand in none; gaps are ranked by answers mentioning competitors and carry those competitors and the domains most cited in those answers (the material of an article brief).",
  input: z.strictObject({ ...filterInput, limit: pageLimit(20), cursor }),
  output: z.object({
    filter: filterOut,
    total_gaps: z.number().int(),
    gaps: z.array(
      z.object({
        prompt_id: z.string(),
        text: z.string(),
        archived: z
          .boolean()
          .describe(
            "no longer asked (delete_prompt archived it; create_prompts with its text tracks it again): its answers of the period still count",
          ),
        competitor_answers: z.number().int(),
        valid_answers: z.number().int(),
        competitors: z.array(z.object({ id: z.string(), name: z.string(), answers: z.number().int() })),
        top_domains: z.array(
          z.object({
            domain: z.string(),
            citations: z.number().int(),
            owned: z.boolean().describe("The brand's own site."),
            competitor: z.object({ id: z.string(), name: z.string() }).nullable().describe("The competitor whose site this is, or null."),
          }),
        ),
      }),
    ),
    next_cursor: nextCursor,
    note: z.string().nullable().describe(PERIOD_NOTE_DESCRIPTION),
  }),
  annotations: READ_ONLY,
  plan: "visibility",
  handler: async (input, ctx) =>
    contentGaps(ctx.app, await resolveFilter(ctx.app, ctx.brand.id, input), { limit: input.limit, offset: decodeOffset(input.cursor) }),
});

const answerSummary = z.object({
  id: z.string(),
  prompt_id: z.string(),
  engine: z.string(),
  model: z.string().nullable(),
  status: z.enum(ANSWER_STATUSES),
  created_at: z.string(),
  mentioned: z.boolean().nullable().describe("null when the answer could not be read (status other than ok): neither mentioned nor not"),
  position: z.number().int().nullable(),
  sentiment: z.number().nullable(),
  cited: z
    .boolean()
    .nullable()
    .describe(
      "whether the answer cites a page of the brand's own domain (not the cited_domain or cited_url filter's: an answer found by them may say false); null when it could not be read",
    ),
});

// The prompt's text beside its id: what a reader (and the CSV export) needs to make sense of a row.
const listedAnswer = answerSummary
  .pick({ id: true, prompt_id: true })
  .extend({ prompt_text: z.string() })
  .extend(answerSummary.omit({ id: true, prompt_id: true }).shape);

const listAnswersTool = defineTool({
  name: "list_answers",
  title: "List answers",
  description:
    "Use to look at the stored AI answers behind the figures, newest first. Filter by prompt, tag, engine, status, whether the brand is mentioned (mentioned: false lists valid answers without the brand), a cited domain or URL, a web search query the assistant ran, and dates (without dates: every stored answer, not the analytics tools' default 30 days); paged with cursor. Each answer comes with its prompt's id and text, engine, status and the brand's mention, position, sentiment and citation; read one in full with get_answer.",
  input: z.strictObject({
    prompt_id: filterInput.prompt_id,
    tag: filterInput.tag,
    engine: filterInput.engine,
    mentioned: z
      .boolean()
      .optional()
      .describe("true: answers that mention the brand; false: valid answers that do not (answers that could not be read are in neither)."),
    status: z.enum(ANSWER_STATUSES).optional().describe("Only answers with this status (ok: a valid answer)."),
    cited_domain: z
      .string()
      .min(1)
      .max(253)
      .regex(/^[A-Za-z0-9.-]+$/, "must be a domain such as g2.com")
      .optional()
      .describe("Only answers citing this domain (a domain from get_top_sources; a host such as www.g2.com counts as its domain, g2.com)."),
    cited_url: z
      .string()
      .min(1)
      .max(2048)
      .optional()
      .describe(
        "Only answers citing this page (a URL from get_top_sources with level url, or a link from get_answer; compared after the citations' normalisation: www., tracking parameters and a trailing slash aside).",
      ),
    searched: z
      .string()
      .min(1)
      .max(500)
      .optional()
      .describe(
        "Only answers whose assistant ran this web search query (a query's id or text from get_search_queries; compared as it groups them, case and spacing aside).",
      ),
    start_date: date.optional().describe("First day (UTC, inclusive). Default: no bound."),
    end_date: date.optional().describe("Last day (UTC, inclusive). Default: no bound."),
    include_text: z
      .boolean()
      .optional()
      .describe("true: each answer's full text too (for an export; long: get_answer reads one with its mentions and citations)."),
    limit: pageLimit(20),
    cursor,
  }),
  output: z.object({
    answers: z.array(listedAnswer.extend({ text: z.string().optional().describe("with include_text: the answer's text") })),
    next_cursor: nextCursor,
  }),
  annotations: READ_ONLY,
  plan: "visibility",
  handler: (input, ctx) => listAnswers(ctx.app, ctx.brand.id, input),
});

const getAnswerTool = defineTool({
  name: "get_answer",
  title: "Get an answer",
  description:
    "Use to read one stored AI answer: its text, the roster members it mentions (the brand and its tracked competitors: position, offset, sentiment) and the URLs it cites (owned when on the brand's site); and, kept apart, the web search queries the assistant ran, the sources its provider lists as cited (with the passage) and the sources it retrieved without citing.",
  input: z.strictObject({
    answer_id: z.string().min(1).max(20).describe("id from list_answers"),
    text_offset: z
      .number()
      .int()
      .min(0)
      .max(10_000_000)
      .optional()
      .describe(
        `where to start reading the text (default 0): an answer longer than ${MAX_TEXT.toLocaleString("en")} characters is read in parts, the next from text_offset + the length of the text returned, while text_truncated is true`,
      ),
  }),
  output: z.object({
    answer: answerSummary.extend({
      day: z.string(),
      prompt_text: z.string(),
      run_id: z.string().nullable(),
      error: z.string().nullable(),
      latency_ms: z.number().int().nullable(),
      tokens_in: z.number().int().nullable(),
      tokens_out: z.number().int().nullable(),
      text: z.string().describe("the text, or the part of it from text_offset when it is long"),
      text_offset: z
        .number()
        .int()
        .describe("where the text returned starts in the answer's whole text (mentions' offsets are in the whole text)"),
      text_length: z.number().int().describe("the length of the answer's whole text"),
      text_truncated: z.boolean().describe("more of the text follows the part returned: ask again with text_offset"),
      mentions: z.array(
        z.object({
          member_id: z.string(),
          name: z.string(),
          is_brand: z.boolean(),
          position: z.number().int(),
          offset: z.number().int(),
          sentiment: z.number().nullable(),
        }),
      ),
      citations: z.array(
        z.object({
          url: z.string().describe("normalised as the metrics count it (www. and tracking parameters dropped)"),
          link: z.string().describe("the address as the answer gave it, to open (a site served only at www. needs it)"),
          domain: z.string(),
          owned: z.boolean(),
        }),
      ),
      search_queries: z.array(z.string()).describe("the web search queries the assistant ran, in order"),
      cited_sources: z
        .array(
          z.object({
            url: z.string(),
            domain: z.string().nullable().describe("null for a redirect that could not be resolved (kept with its title)"),
            title: z.string().nullable(),
            start: z.number().int().nullable().describe("offset in text of the passage citing it, when the provider gives one"),
            end: z.number().int().nullable(),
            owned: z.boolean().describe("on the brand's own domain"),
          }),
        )
        .describe("the sources the provider says the answer cites, one per cited passage"),
      retrieved_sources: z
        .array(
          z.object({
            url: z.string(),
            domain: z.string().nullable(),
            title: z.string().nullable(),
            owned: z.boolean().describe("on the brand's own domain: read by the search, yet not cited"),
          }),
        )
        .describe("sources the search returned that no passage cites"),
    }),
  }),
  annotations: READ_ONLY,
  plan: "visibility",
  handler: async (input, ctx) => await getAnswer(ctx.app, ctx.brand.id, input.answer_id, input.text_offset),
});

const getSearchQueries = defineTool({
  name: "get_search_queries",
  title: "Search queries",
  description:
    "Use to learn what the assistants searched the web for when answering the brand's prompts (their query fan-out): the content to write is the content those searches find. Returns the queries of the period's valid answers, grouped case- and space-insensitively, queries that recur across several prompts first, then by answers; each with the answers that ran it, the engines, and the prompts that caused it (up to 5, prompt_count says how many in all). Only engines with web search report queries. list_answers with searched lists the answers that ran one.",
  input: z.strictObject({ ...filterInput, limit: pageLimit(20), cursor }),
  output: z.object({
    filter: filterOut,
    queries: z.array(
      z.object({
        id: z.string().describe("the query's normalised text"),
        query: z.string(),
        answers: z.number().int().describe("valid answers whose assistant ran it"),
        prompt_count: z.number().int().describe("distinct prompts whose answers ran it"),
        engines: z.array(z.string()),
        prompts: z.array(z.object({ id: z.string(), text: z.string() })),
      }),
    ),
    next_cursor: nextCursor,
    note: z.string().nullable().describe(PERIOD_NOTE_DESCRIPTION),
  }),
  annotations: READ_ONLY,
  plan: "visibility",
  handler: async (input, ctx) => {
    const offset = decodeOffset(input.cursor);
    const filter = await resolveFilter(ctx.app, ctx.brand.id, input);
    const { more, ...result } = await searchQueries(ctx.app, filter, { limit: input.limit, offset });
    return {
      ...result,
      next_cursor: more ? encodeOffset(offset + input.limit) : null,
      note: await periodNote(ctx.app, filter, result.queries.length === 0 && offset === 0),
    };
  },
});

const impactWindow = z.object({
  start_date: z.string().nullable().describe("first day (UTC, inclusive); null when the window has no day yet"),
  end_date: z.string().nullable().describe("last day (UTC, inclusive)"),
  days: z.number().int(),
});
const beforeAfter = z.object({
  before: rate,
  after: rate,
  change_pp: z.number().nullable().describe("after − before in percentage points"),
  within_noise: z.boolean().nullable().describe("the two 95% intervals overlap: the change may be noise"),
});

const getArticleImpact = defineTool({
  name: "get_article_impact",
  title: "Article impact",
  description: `Use to see whether a published article moved the numbers of the prompt it was written for (articles linked to a prompt, newest publication first, paged). For each: the prompt's visibility and citation rate in the window_days whole UTC days before the publication day and the window_days after it (ending today when fewer have passed; the publication day is in neither), each with n and a Wilson 95% interval, the change in points and within_noise; and article_cited: whether an answer has cited the article's own URL since publication (a cited URL on the brand's domain, or under the server's public_url, whose last path segment is the article's slug).`,
  input: z.strictObject({
    window_days: z
      .number()
      .int()
      .min(1)
      .max(MAX_WINDOW_DAYS)
      .default(DEFAULT_WINDOW_DAYS)
      .describe(`Days in each window, 1-${MAX_WINDOW_DAYS} (default ${DEFAULT_WINDOW_DAYS}).`),
    article_id: idOf("article", "list_articles")
      .optional()
      .describe(
        "Only this article (an article.id this tool listed, or one from list_articles on the Autopilot plan); none listed while it is a draft or linked to no prompt.",
      ),
    limit: pageLimit(10),
    cursor,
  }),
  output: z.object({
    window_days: z.number().int(),
    total_articles: z.number().int().describe("published articles linked to a prompt"),
    articles: z.array(
      z.object({
        article: z.object({ id: z.string(), title: z.string(), slug: z.string(), published_at: z.string() }),
        prompt: z.object({ id: z.string(), text: z.string() }),
        before: impactWindow,
        after: impactWindow,
        answers: z.object({
          before: z.object({ total: z.number().int(), valid: z.number().int() }),
          after: z.object({ total: z.number().int(), valid: z.number().int() }),
        }),
        visibility: beforeAfter,
        citation_rate: beforeAfter,
        article_cited: z.object({
          cited: z.boolean(),
          citations: z.number().int().describe("citations of the article's URL since publication (once per answer and URL)"),
          first_cited_at: z.string().nullable(),
          last_cited_at: z.string().nullable(),
        }),
      }),
    ),
    next_cursor: nextCursor,
    note: z
      .string()
      .nullable()
      .describe("with article_id: why that article is not listed (not published, or linked to no prompt); otherwise null"),
  }),
  annotations: READ_ONLY,
  plan: "visibility",
  // The article resources need Autopilot: a Visibility key gets no link it could not follow.
  links: (output, ctx) => (planCovers(ctx.plan, ARTICLES_PLAN) ? output.articles.flatMap((a) => articleLinks(a.article)) : []),
  handler: async (input, ctx) => {
    // An id that is no article of the brand is not found (a draft, or one linked to no prompt, is listed as none).
    // Why the article asked for is not listed, said (an empty list read as no effect, the AI-client walk).
    let note: string | null = null;
    if (input.article_id !== undefined) {
      const article = await getArticle(ctx.app.db, ctx.brand.id, input.article_id);
      if (article.status !== "published") {
        note = "This article is not published (a draft): its impact is measured from its publication (publish_to_site).";
      } else if (article.prompt_id === null) {
        note =
          "This article is linked to no prompt, so there is no prompt whose figures it could move: link it to the prompt it answers (update_article with prompt_id).";
      }
    }
    const impact = await articleImpact(
      ctx.app,
      ctx.brand.id,
      (await listPublishedArticles(ctx.app.db, ctx.brand.id)).filter((a) => input.article_id === undefined || a.id === input.article_id),
      {
        windowDays: input.window_days,
        limit: input.limit,
        offset: decodeOffset(input.cursor),
      },
    );
    return { ...impact, note };
  },
});

export const analyticsTools = [
  getVisibilityOverview,
  getVisibilityTrend,
  getCompetitorRanking,
  getPromptPerformance,
  getTopSources,
  getContentGaps,
  listAnswersTool,
  getAnswerTool,
  getSearchQueries,
  getArticleImpact,
] as const;

// Stored answers themselves: a bounded, cursor-paged list and one answer in full.
import { type AppContext } from "../context";
import { type AnswerStatus } from "../db/values";
import { Invalid, NotFound } from "../errors";
import { iso, otherRecordOf } from "../ids";
import { getPrompt, getPromptTexts, listPromptIds } from "../prompts/service";
import { registrableDomain } from "../public-suffixes";
import { citedAddresses, normalizeUrl } from "../tracking/analysis/citations";
import { checkEngine } from "../tracking/engines";
import { isOnDomains, loadRoster } from "../tracking/roster";
import { queryKey } from "../tracking/search-store";
import { DAY_MS, dayString, parseDay, resolveTag, type SqlParam } from "./filters";
import { answerSearch } from "./search";

export interface AnswerSummary {
  id: string;
  prompt_id: string;
  engine: string;
  model: string | null;
  status: AnswerStatus;
  created_at: string;
  /** Null for an answer that could not be read (METRICS.md: never "not mentioned"), as `cited`. */
  mentioned: boolean | null;
  position: number | null;
  sentiment: number | null;
  cited: boolean | null;
}

export interface ListAnswersInput {
  prompt_id?: string;
  /** Only answers to the prompts with this tag (name or id). */
  tag?: string;
  engine?: string;
  mentioned?: boolean;
  status?: AnswerStatus;
  /** Only answers citing a URL on this registrable domain (as get_top_sources names it). */
  cited_domain?: string;
  /** Only answers citing this URL (as get_top_sources lists it by URL). */
  cited_url?: string;
  /** Only answers whose assistant ran this web search query (as get_search_queries groups them). */
  searched?: string;
  start_date?: string;
  end_date?: string;
  /** Each answer's text too (an export's; a page of texts is long for a client's context). */
  include_text?: boolean;
  limit: number;
  cursor?: string;
}

interface SummaryRow {
  id: number;
  prompt_id: string;
  engine: string;
  model: string | null;
  status: AnswerStatus;
  created_at: number;
  brand_mentioned: number;
  brand_position: number | null;
  brand_sentiment: number | null;
  brand_cited: number;
  text?: string;
}

// Answers are stored under integer keys; clients see them prefixed like every other id.
const ANSWER_ID = /^(?:ans_)?(\d{1,15})$/i;

function answerIdOf(key: number): string {
  return `ans_${key}`;
}

/** The stored key of an answer id, `ans_123`, or `123` as ids were shown before they had a prefix. */
function answerKeyOf(answerId: string): number | null {
  // Spaces around it and the prefix's case are a copy's, not another id ("ANS_7198", " ans_7198").
  const match = ANSWER_ID.exec(answerId.trim());
  return match ? Number(match[1]) : null;
}

function summary(r: SummaryRow): AnswerSummary {
  return {
    id: answerIdOf(r.id),
    prompt_id: r.prompt_id,
    engine: r.engine,
    model: r.model,
    status: r.status,
    created_at: iso(r.created_at),
    mentioned: r.status === "ok" ? r.brand_mentioned === 1 : null,
    position: r.brand_position,
    sentiment: r.brand_sentiment,
    cited: r.status === "ok" ? r.brand_cited === 1 : null,
  };
}

function encodeCursor(row: SummaryRow): string {
  return Buffer.from(`a:${row.created_at}:${row.id}`).toString("base64url");
}

function decodeCursor(cursor: string): { createdAt: number; id: number } {
  const match = /^a:(\d{1,15}):(\d{1,15})$/.exec(Buffer.from(cursor, "base64url").toString());
  if (!match) throw new Invalid("cursor: pass back the next_cursor of a previous result unchanged.", "invalid_cursor");
  return { createdAt: Number(match[1]), id: Number(match[2]) };
}

/**
 * Newest first. `mentioned: false` lists valid answers that do not mention the brand (an answer
 * that could not be read is not a "not mentioned"). Dates default to no bound: every stored answer.
 * A prompt or tag that is not the brand's is refused as not found, as the analytics tools refuse it.
 */
export async function listAnswers(app: AppContext, brandId: string, input: ListAnswersInput) {
  const parts = ["a.brand_id = ?"];
  const params: SqlParam[] = [brandId];
  const start = input.start_date !== undefined ? parseDay(input.start_date, "start_date") : null;
  const end = input.end_date !== undefined ? parseDay(input.end_date, "end_date") : null;
  if (start !== null && end !== null && start > end) throw new Invalid("start_date must be on or before end_date.", "invalid_date_range");
  if (start !== null) {
    parts.push("a.created_at >= ?");
    params.push(start);
  }
  if (end !== null) {
    parts.push("a.created_at < ?");
    params.push(end + DAY_MS);
  }
  if (input.prompt_id !== undefined) {
    parts.push("a.prompt_id = ?");
    // "Prompt not found." for another brand's prompt as for one that does not exist.
    params.push((await getPrompt(app.db, brandId, input.prompt_id)).id);
  }
  if (input.tag !== undefined) {
    const tag = await resolveTag(app, brandId, input.tag);
    parts.push("a.prompt_id IN (SELECT value FROM json_each(?))");
    params.push(JSON.stringify(await listPromptIds(app.db, brandId, tag.id)));
  }
  if (input.engine !== undefined) {
    parts.push("a.engine = ?");
    params.push(await checkEngine(app, brandId, input.engine));
  }
  if (input.mentioned !== undefined) {
    parts.push(input.mentioned ? "a.brand_mentioned = 1" : "a.status = 'ok' AND a.brand_mentioned = 0");
  }
  if (input.status !== undefined) {
    parts.push("a.status = ?");
    params.push(input.status);
  }
  if (input.cited_domain !== undefined) {
    // The citations of the same brand's answer only (a citation row carries its brand). Compared as
    // stored: a host ("www.g2.com", "blog.g2.com") is its registrable domain (it matched nothing).
    parts.push("EXISTS (SELECT 1 FROM citations c WHERE c.answer_id = a.id AND c.brand_id = a.brand_id AND c.domain = ?)");
    params.push(registrableDomain(input.cited_domain));
  }
  if (input.cited_url !== undefined) {
    // Normalised as the citations are (METRICS.md): the link get_answer gives, or the answer's own
    // text, found nothing where they had a "www." or a tracking parameter.
    const url = normalizeUrl(input.cited_url);
    if (url === null) {
      throw new Invalid(
        `cited_url: ${JSON.stringify(input.cited_url)} is not an http(s) address; give one from get_top_sources (level url) or from get_answer's citations.`,
      );
    }
    parts.push("EXISTS (SELECT 1 FROM citations c WHERE c.answer_id = a.id AND c.brand_id = a.brand_id AND c.url = ?)");
    params.push(url);
  }
  if (input.searched !== undefined) {
    // Grouped as get_search_queries groups them: case and spacing aside (its id is this key).
    const key = queryKey(input.searched);
    if (key === "") throw new Invalid("searched: give a query's id or text from get_search_queries; this one is blank.");
    parts.push("EXISTS (SELECT 1 FROM search_queries q WHERE q.answer_id = a.id AND q.query_key = ?)");
    params.push(key);
  }
  if (input.cursor !== undefined) {
    const c = decodeCursor(input.cursor);
    // The bound on created_at alone first, so that the index is searched from there in order: as
    // "created_at < ? OR (created_at = ? AND id < ?)" SQLite read both branches and sorted the brand's
    // whole history for every page after the first (0.2-0.4 s a page at 216,000 answers, which held
    // the server through an export of them all).
    parts.push("a.created_at <= ? AND (a.created_at < ? OR a.id < ?)");
    params.push(c.createdAt, c.createdAt, c.id);
  }
  // A scan (db/reader.ts): a page is read from the index newest first until it is full, but a filter
  // few answers match (a domain or URL cited rarely, a query searched rarely) reads the brand's whole history to find them,
  // 147 ms for 216,000 answers (cited_domain) on the serving thread.
  const rows = await app.db.scan<SummaryRow>(
    `SELECT a.id, a.prompt_id, a.engine, a.model, a.status, a.created_at, a.brand_mentioned, a.brand_position,
         a.brand_sentiment, a.brand_cited${input.include_text ? ", a.text" : ""}
       FROM answers a WHERE ${parts.join(" AND ")} ORDER BY a.created_at DESC, a.id DESC LIMIT ?`,
    [...params, input.limit + 1],
  );
  const page = rows.slice(0, input.limit);
  const texts = await getPromptTexts(app.db, brandId, [...new Set(page.map((r) => r.prompt_id))]);
  return {
    // In the order of list_answers' output schema: the prompt's text beside its id.
    answers: page.map((r) => {
      const { id, prompt_id, ...rest } = summary(r);
      return { id, prompt_id, prompt_text: texts.get(r.prompt_id) ?? "", ...rest, ...(input.include_text ? { text: r.text ?? "" } : {}) };
    }),
    next_cursor: rows.length > input.limit ? encodeCursor(page[page.length - 1]!) : null,
  };
}

/** The provider's cited URLs as stored (a JSON list of strings). */
function providerUrls(json: string): string[] {
  try {
    const value = JSON.parse(json) as unknown;
    return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];
  } catch {
    return [];
  }
}

/** Longest text returned by get_answer at once; a longer answer is read in parts (text_offset). */
export const MAX_TEXT = 20_000;

/**
 * The part of an answer's text from `offset` (UTF-16 units, as the mentions' offsets), at most
 * MAX_TEXT long, its ends moved off the middle of a surrogate pair (an emoji is never cut in two).
 */
function textPart(text: string, offset: number): { text: string; offset: number; truncated: boolean } {
  const inPair = (at: number) => at > 0 && at < text.length && /[\uDC00-\uDFFF]/.test(text[at]!) && /[\uD800-\uDBFF]/.test(text[at - 1]!);
  let start = Math.min(offset, text.length);
  if (inPair(start)) start--;
  let end = Math.min(start + MAX_TEXT, text.length);
  if (inPair(end)) end--;
  return { text: text.slice(start, end), offset: start, truncated: end < text.length };
}

export async function getAnswer(app: AppContext, brandId: string, answerId: string, textOffset = 0) {
  const key = answerKeyOf(answerId);
  if (key === null) {
    // Another record's id (a model passing a prompt's id) or no id at all: said, with the way to an answer's.
    const other = otherRecordOf(answerId, "ans");
    const what = other
      ? ` (${answerId.slice(0, 40)} is ${other.what}${other.prefix === "prm" ? "; list_answers with prompt_id lists its answers" : ""})`
      : "";
    throw new NotFound(
      `Answer not found: an answer id looks like ans_7192${what}; list_answers gives the brand's answers and their ids.`,
      "answer_not_found",
    );
  }
  const db = app.db;
  const row = await db.get<
    SummaryRow & {
      text: string;
      provider_citations: string;
      error: string | null;
      run_id: string | null;
      latency_ms: number | null;
      tokens_in: number | null;
      tokens_out: number | null;
    }
  >("SELECT a.* FROM answers a WHERE a.id = ? AND a.brand_id = ?", [key, brandId]);
  if (!row) throw new NotFound("Answer not found; list_answers gives the brand's answers and their ids.", "answer_not_found");
  const roster = await loadRoster(app.db, brandId);
  const names = new Map(roster.members.map((m) => [m.id, m]));
  const mentions = (
    await db.all<{ member_id: string; offset: number; rank: number; sentiment: number | null }>(
      `SELECT member_id, "offset", rank, sentiment FROM mentions WHERE answer_id = ? ORDER BY rank`,
      [row.id],
    )
  )
    .filter((m) => names.has(m.member_id))
    .map((m) => ({
      member_id: m.member_id,
      name: names.get(m.member_id)!.name,
      is_brand: names.get(m.member_id)!.isBrand,
      position: m.rank,
      offset: m.offset,
      sentiment: m.sentiment,
    }));
  // In the order the analysis found them (provider citations, then the text's links), which is the
  // order they were stored in; a row the analysis no longer yields follows, by URL.
  const found = new Map(citedAddresses(row.text, providerUrls(row.provider_citations)).map((c, i) => [c.url, { order: i, link: c.link }]));
  const order = (url: string) => found.get(url)?.order ?? found.size;
  const citations = (await db.all<{ url: string; domain: string }>("SELECT url, domain FROM citations WHERE answer_id = ?", [row.id]))
    .sort((a, b) => order(a.url) - order(b.url) || (a.url < b.url ? -1 : a.url > b.url ? 1 : 0))
    .map((c) => ({ url: c.url, link: found.get(c.url)?.link ?? c.url, domain: c.domain, owned: isOnDomains(c.url, roster.brandDomains) }));
  const promptText = (await getPrompt(app.db, brandId, row.prompt_id)).text;
  const search = await answerSearch(app, row.id);
  return {
    answer: {
      ...summary(row),
      day: dayString(row.created_at),
      prompt_text: promptText,
      run_id: row.run_id,
      error: row.error,
      latency_ms: row.latency_ms,
      tokens_in: row.tokens_in,
      tokens_out: row.tokens_out,
      ...(({ text, offset, truncated }) => ({ text, text_offset: offset, text_length: row.text.length, text_truncated: truncated }))(
        textPart(row.text, textOffset),
      ),
      mentions,
      citations,
      search_queries: search.search_queries,
      // Whether a source is on the brand's own site: a page of it the search read but the answer did
      // not cite is the gap between being found and being quoted.
      cited_sources: search.cited_sources.map((s) => ({ ...s, owned: s.domain !== null && isOnDomains(s.url, roster.brandDomains) })),
      retrieved_sources: search.retrieved_sources.map((s) => ({
        ...s,
        owned: s.domain !== null && isOnDomains(s.url, roster.brandDomains),
      })),
    },
  };
}

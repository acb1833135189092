// Tracked prompts: the questions whose AI answers are tracked for a brand. Texts are unique per
// brand case- and space-insensitively (`text_key`); archiving hides a prompt from tracking and lists
// while its stored answers stay. Every query is keyed by the brand id of a verified credential.
import { type Statement } from "bun:sqlite";
import { and, asc, eq, inArray, isNull, sql } from "drizzle-orm";
import { type Db } from "../db/client";
import { prompts, promptTags } from "../db/schema";
import { Conflict, Invalid, NotFound } from "../errors";
import { iso, newId } from "../ids";
import { decodeCursor, page } from "../paging";
import { ensureTags, findTag } from "./tags";

export const PROMPT_TEXT_MIN = 3;
export const PROMPT_TEXT_MAX = 500;
export const PROMPTS_PER_CALL = 100;

export interface PromptView {
  id: string;
  text: string;
  tags: string[];
  country: string | null;
  language: string | null;
  archived: boolean;
  created_at: string;
}

export interface NewPrompt {
  text: string;
  tags?: string[];
  country?: string | null;
  language?: string | null;
}

export interface PromptPatch {
  text?: string;
  tags?: string[];
  country?: string | null;
  language?: string | null;
}

type PromptRow = typeof prompts.$inferSelect;

/** Trimmed, runs of whitespace collapsed: the text as stored. */
export function normalizePromptText(text: string, field = "text"): string {
  const clean = text.trim().replace(/\s+/g, " ");
  if (clean.length < PROMPT_TEXT_MIN || clean.length > PROMPT_TEXT_MAX) {
    throw new Invalid(`${field}: a prompt must be ${PROMPT_TEXT_MIN} to ${PROMPT_TEXT_MAX} characters.`, "invalid_prompt_text");
  }
  return clean;
}

/** The duplicate-detection key: case- and space-insensitive. */
export function promptTextKey(text: string): string {
  return text.trim().replace(/\s+/g, " ").toLowerCase();
}

/** ISO 3166-1 alpha-2, stored uppercase. */
export function normalizeCountry(value: string | null | undefined, field = "country"): string | null {
  if (value === null || value === undefined || value === "") return null;
  if (!/^[a-z]{2}$/i.test(value)) {
    throw new Invalid(`${field}: give a two-letter country code such as US or DE.`, "invalid_country");
  }
  return value.toUpperCase();
}

/** A BCP 47 language tag such as en or pt-BR, stored with a lowercase language part. */
export function normalizeLanguage(value: string | null | undefined, field = "language"): string | null {
  if (value === null || value === undefined || value === "") return null;
  const match = /^([a-z]{2,3})(-[a-z0-9]{2,8})*$/i.exec(value);
  if (!match) throw new Invalid(`${field}: give a language code such as en or pt-BR.`, "invalid_language");
  const [lang, ...rest] = value.split("-");
  return [lang!.toLowerCase(), ...rest.map((part) => (part.length === 2 ? part.toUpperCase() : part))].join("-");
}

function notFound(): NotFound {
  return new NotFound("Prompt not found; list_prompts shows the brand's prompts and their ids.", "prompt_not_found");
}

// The reads behind list_prompts and every returned prompt: cached statements, the tag names gathered
// per row in SQL (and sorted here: an ORDER BY inside the correlated subquery costs a sort per row),
// so a page costs one query and no SQL building.
const PROMPT_COLUMNS = `p.id, p.text, p.country, p.language, p.archived_at, p.created_at, p.rowid AS rid,
  (SELECT json_group_array(t.name) FROM prompt_tags pt JOIN tags t ON t.id = pt.tag_id WHERE pt.prompt_id = p.id) AS tag_names`;

interface PromptSqlRow {
  id: string;
  text: string;
  country: string | null;
  language: string | null;
  archived_at: number | null;
  created_at: number;
  rid: number;
  tag_names: string;
}

type ListParams = Record<string, string | number>;

interface ListFilter {
  includeArchived: boolean;
  after: boolean;
  query: boolean;
  tag: boolean;
}

function oneStatement(db: Db): Statement<PromptSqlRow, [string, string]> {
  return db.prepared("prompts.one", () => db.sqlite.prepare(`SELECT ${PROMPT_COLUMNS} FROM prompts p WHERE p.brand_id = ?1 AND p.id = ?2`));
}

/** One statement per combination of filters: optional terms written as `?x IS NULL OR …` cost SQLite a plan per row. */
function listStatement(db: Db, filter: ListFilter): Statement<PromptSqlRow, [ListParams]> {
  const key = `${+filter.includeArchived}${+filter.after}${+filter.query}${+filter.tag}`;
  return db.prepared(`prompts.list.${key}`, () => {
    const terms = ["p.brand_id = $brand"];
    if (!filter.includeArchived) terms.push("p.archived_at IS NULL");
    if (filter.after) terms.push("(p.created_at > $after_at OR (p.created_at = $after_at AND p.rowid > $after_row))");
    // instr() rather than LIKE: the user's text needs no escaping of % and _.
    if (filter.query) terms.push("instr(p.text_key, $query) > 0");
    if (filter.tag) terms.push("p.id IN (SELECT prompt_id FROM prompt_tags WHERE tag_id = $tag)");
    // In (created_at, rowid) order, which the (brand_id, created_at) index already has.
    return db.sqlite.prepare<PromptSqlRow, [ListParams]>(
      `SELECT ${PROMPT_COLUMNS} FROM prompts p WHERE ${terms.join(" AND ")} ORDER BY p.created_at, p.rowid LIMIT $limit`,
    );
  });
}

function byName(a: string, b: string): number {
  const x = a.toLowerCase();
  const y = b.toLowerCase();
  return x < y ? -1 : x > y ? 1 : 0;
}

function view(row: PromptSqlRow): PromptView {
  return {
    id: row.id,
    text: row.text,
    tags: (JSON.parse(row.tag_names) as string[]).sort(byName),
    country: row.country,
    language: row.language,
    archived: row.archived_at !== null,
    created_at: iso(row.created_at),
  };
}

/** Prepared: create_prompts looks up every text it is given. */
function promptByTextKey(db: Db, brandId: string, textKey: string): PromptRow | undefined {
  const byTextKey = db.prepared("prompts.byTextKey", () =>
    db.orm
      .select()
      .from(prompts)
      .where(and(eq(prompts.brandId, sql.placeholder("brandId")), eq(prompts.textKey, sql.placeholder("textKey"))))
      .prepare(),
  );
  return byTextKey.get({ brandId, textKey });
}

function findRow(db: Db, brandId: string, promptId: string): PromptRow | undefined {
  return db.orm
    .select()
    .from(prompts)
    .where(and(eq(prompts.brandId, brandId), eq(prompts.id, promptId)))
    .get();
}

export function getPrompt(db: Db, brandId: string, promptId: string): PromptView {
  const row = oneStatement(db).get(brandId, promptId);
  if (!row) throw notFound();
  return view(row);
}

/** The brand's active prompts in the order they were added: what a tracking run asks. */
export function listActivePrompts(db: Db, brandId: string): Array<{ id: string; text: string }> {
  return db.orm
    .select({ id: prompts.id, text: prompts.text })
    .from(prompts)
    .where(and(eq(prompts.brandId, brandId), isNull(prompts.archivedAt)))
    .orderBy(asc(prompts.createdAt), asc(prompts.id))
    .all();
}

/** Ids of the brands that have at least one active prompt (the ones a tracking run has work for). */
export function listBrandIdsWithActivePrompts(db: Db): Set<string> {
  const rows = db.orm.selectDistinct({ brandId: prompts.brandId }).from(prompts).where(isNull(prompts.archivedAt)).all();
  return new Set(rows.map((row) => row.brandId));
}

/** Ids of the brand's prompts, archived ones included, or only those carrying the tag: the scope of a metric. */
export function listPromptIds(db: Db, brandId: string, tagId: string | null = null): string[] {
  // Prepared: every analytics call over prompts asks for its scope.
  const rows =
    tagId === null
      ? db
          .prepared("prompts.idsOfBrand", () =>
            db.orm
              .select({ id: prompts.id })
              .from(prompts)
              .where(eq(prompts.brandId, sql.placeholder("brandId")))
              .prepare(),
          )
          .all({ brandId })
      : db
          .prepared("prompts.idsOfTag", () =>
            db.orm
              .select({ id: prompts.id })
              .from(prompts)
              .innerJoin(promptTags, eq(promptTags.promptId, prompts.id))
              .where(and(eq(prompts.brandId, sql.placeholder("brandId")), eq(promptTags.tagId, sql.placeholder("tagId"))))
              .prepare(),
          )
          .all({ brandId, tagId });
  return rows.map((row) => row.id);
}

/** The texts of the given prompts of the brand, by id (another brand's ids are left out). */
export function getPromptTexts(db: Db, brandId: string, promptIds: readonly string[]): Map<string, string> {
  if (promptIds.length === 0) return new Map();
  const rows = db.orm
    .select({ id: prompts.id, text: prompts.text })
    .from(prompts)
    .where(and(eq(prompts.brandId, brandId), inArray(prompts.id, [...promptIds])))
    .all();
  return new Map(rows.map((row) => [row.id, row.text]));
}

/** The brand's prompts in the order they were added, filtered by tag (name or id) and text, paged. */
export function listPrompts(
  db: Db,
  brandId: string,
  options: { tag?: string; query?: string; includeArchived?: boolean; limit: number; cursor?: string },
): { prompts: PromptView[]; next_cursor: string | null } {
  const after = decodeCursor(options.cursor, ["number", "number"] as const);
  let tagId: string | null = null;
  if (options.tag !== undefined) {
    const tag = findTag(db, brandId, options.tag);
    if (!tag) throw new NotFound(`Tag "${options.tag}" not found; list_tags shows the brand's tags.`, "tag_not_found");
    tagId = tag.id;
  }
  const query = options.query === undefined ? "" : promptTextKey(options.query);
  const filter = { includeArchived: options.includeArchived === true, after: after !== null, query: query !== "", tag: tagId !== null };
  const params: ListParams = { brand: brandId, limit: options.limit + 1 };
  if (after) Object.assign(params, { after_at: after[0], after_row: after[1] });
  if (filter.query) params.query = query;
  if (tagId) params.tag = tagId;
  const rows = listStatement(db, filter).all(params);
  const { items, next } = page(rows, options.limit, (r) => [r.created_at, r.rid]);
  return { prompts: items.map(view), next_cursor: next };
}

function setTags(db: Db, brandId: string, promptId: string, names: readonly string[], field: string): void {
  const ids = ensureTags(db, brandId, names, field);
  db.orm.delete(promptTags).where(eq(promptTags.promptId, promptId)).run();
  if (ids.length > 0) {
    db.orm
      .insert(promptTags)
      .values(ids.map((tagId) => ({ promptId, tagId })))
      .run();
  }
}

function addTags(db: Db, brandId: string, promptId: string, names: readonly string[], field: string): void {
  const ids = ensureTags(db, brandId, names, field);
  if (ids.length > 0) {
    db.orm
      .insert(promptTags)
      .values(ids.map((tagId) => ({ promptId, tagId })))
      .onConflictDoNothing()
      .run();
  }
}

/**
 * Adds prompts. A text the brand already tracks, or one repeated within the call (compared
 * case- and space-insensitively), is reported in `duplicates` and not created; an archived prompt
 * with the same text is restored instead (its history kept) and counts as created. Tags that do not
 * exist are created. All or nothing: an invalid item fails the whole call.
 */
export function createPrompts(db: Db, brandId: string, items: readonly NewPrompt[]): { created: PromptView[]; duplicates: string[] } {
  if (items.length < 1 || items.length > PROMPTS_PER_CALL) {
    throw new Invalid(`prompts: give 1 to ${PROMPTS_PER_CALL} prompts per call.`, "invalid_prompts");
  }
  const prepared = items.map((item, i) => ({
    text: normalizePromptText(item.text, `prompts[${i}].text`),
    tags: item.tags ?? [],
    country: normalizeCountry(item.country, `prompts[${i}].country`),
    language: normalizeLanguage(item.language, `prompts[${i}].language`),
    field: `prompts[${i}].tags`,
    given: item.text,
  }));
  return db.sqlite
    .transaction(() => {
      const createdIds: string[] = [];
      const duplicates: string[] = [];
      const seen = new Set<string>();
      const now = Date.now();
      for (const item of prepared) {
        const key = promptTextKey(item.text);
        if (seen.has(key)) {
          duplicates.push(item.given);
          continue;
        }
        seen.add(key);
        const existing = promptByTextKey(db, brandId, key);
        if (existing && existing.archivedAt === null) {
          duplicates.push(item.given);
          continue;
        }
        if (existing) {
          db.orm
            .update(prompts)
            .set({
              archivedAt: null,
              ...(item.country !== null ? { country: item.country } : {}),
              ...(item.language !== null ? { language: item.language } : {}),
            })
            .where(eq(prompts.id, existing.id))
            .run();
          addTags(db, brandId, existing.id, item.tags, item.field);
          createdIds.push(existing.id);
          continue;
        }
        const id = newId("prm");
        db.orm
          .insert(prompts)
          .values({ id, brandId, text: item.text, textKey: key, country: item.country, language: item.language, createdAt: now })
          .run();
        addTags(db, brandId, id, item.tags, item.field);
        createdIds.push(id);
      }
      return { created: createdIds.map((id) => getPrompt(db, brandId, id)), duplicates };
    })
    .immediate();
}

/** Changes the fields given; `tags` replaces the prompt's tags (creating unknown ones). */
export function updatePrompt(db: Db, brandId: string, promptId: string, patch: PromptPatch): PromptView {
  return db.sqlite
    .transaction(() => {
      const current = findRow(db, brandId, promptId);
      if (!current) throw notFound();
      const changes: Partial<PromptRow> = {};
      if (patch.text !== undefined) {
        const text = normalizePromptText(patch.text);
        const key = promptTextKey(text);
        const clash = db.orm
          .select({ id: prompts.id })
          .from(prompts)
          .where(and(eq(prompts.brandId, brandId), eq(prompts.textKey, key)))
          .get();
        if (clash && clash.id !== promptId) {
          throw new Conflict("Another prompt of this brand already has this text (compared ignoring case and spaces).", "prompt_exists");
        }
        changes.text = text;
        changes.textKey = key;
      }
      if (patch.country !== undefined) changes.country = normalizeCountry(patch.country);
      if (patch.language !== undefined) changes.language = normalizeLanguage(patch.language);
      if (Object.keys(changes).length > 0) {
        db.orm
          .update(prompts)
          .set(changes)
          .where(and(eq(prompts.brandId, brandId), eq(prompts.id, promptId)))
          .run();
      }
      if (patch.tags !== undefined) setTags(db, brandId, promptId, patch.tags, "tags");
      return getPrompt(db, brandId, promptId);
    })
    .immediate();
}

/** Archives the prompt: tracking skips it, its stored answers stay. Archiving twice is harmless. */
export function archivePrompt(db: Db, brandId: string, promptId: string): PromptView {
  const current = findRow(db, brandId, promptId);
  if (!current) throw notFound();
  if (current.archivedAt === null) {
    db.orm
      .update(prompts)
      .set({ archivedAt: Date.now() })
      .where(and(eq(prompts.brandId, brandId), eq(prompts.id, promptId)))
      .run();
  }
  return getPrompt(db, brandId, promptId);
}

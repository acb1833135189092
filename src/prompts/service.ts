// Tracked prompts: the questions whose AI answers are tracked for a brand. Texts are unique per
// brand case- and space-insensitively (`text_key`); archiving hides a prompt from tracking and lists
// while its stored answers stay. Every query is keyed by the brand id of a verified credential.

import { type Dialect, placeholders, type Queries, type SqlParam, type SqlText } from "../db/queries";
import { Conflict, Invalid, NotFound } from "../errors";
import { iso, newId } from "../ids";
import { cleanLabel, labelKey, labelLength } from "../labels";
import { decodeCursor, encodeCursor, page } from "../paging";
import { PROMPT_TEXT_MAX, PROMPT_TEXT_MIN, PROMPTS_PER_CALL } from "./limits";
import { ensureTags, findTag } from "./tags";

export { PROMPT_TEXT_MAX, PROMPT_TEXT_MIN, PROMPTS_PER_CALL } from "./limits";

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

/** Composed, without invisible characters, trimmed, runs of whitespace collapsed (cleanLabel): the text as stored. */
export function normalizePromptText(text: string, field = "text"): string {
  const clean = cleanLabel(text);
  if (labelLength(clean) < PROMPT_TEXT_MIN || labelLength(clean) > PROMPT_TEXT_MAX) {
    throw new Invalid(`${field}: a prompt must be ${PROMPT_TEXT_MIN} to ${PROMPT_TEXT_MAX} characters.`, "invalid_prompt_text");
  }
  return clean;
}

/** The duplicate-detection key: case- and space-insensitive, one key for one text typed two ways (labelKey). */
export function promptTextKey(text: string): string {
  return labelKey(text);
}

let regionNames: Intl.DisplayNames | null = null;

/**
 * ISO 3166-1 alpha-2, stored uppercase: a code the runtime's region data names (ICU's, which also
 * knows UK and EU as people write them); two letters that name no region (ZZ, AA) are refused.
 */
export function normalizeCountry(value: string | null | undefined, field = "country"): string | null {
  if (value === null || value === undefined || value === "") return null;
  const code = value.toUpperCase();
  regionNames ??= new Intl.DisplayNames(["en"], { type: "region", fallback: "code" });
  const name = /^[A-Z]{2}$/.test(code) ? regionNames.of(code) : undefined;
  if (name === undefined || name === code || name === "Unknown Region") {
    // Two letters that name no country are said so: "give a two-letter code" read as wrong about "XX".
    const problem = /^[A-Z]{2}$/.test(code) ? `${code} is no country's two-letter code (ISO 3166-1)` : "give a two-letter country code";
    throw new Invalid(`${field}: ${problem}; give one such as US or DE.`, "invalid_country");
  }
  return code;
}

/** A BCP 47 language tag such as en or pt-BR, stored with a lowercase language part. */
export function normalizeLanguage(value: string | null | undefined, field = "language"): string | null {
  if (value === null || value === undefined || value === "") return null;
  const match = /^([a-z]{2,3})(-[a-z0-9]{2,8})*$/i.exec(value);
  if (!match) throw new Invalid(`${field}: give a language code such as en or pt-BR.`, "invalid_language");
  const [lang, ...rest] = value.split("-");
  return [lang!.toLowerCase(), ...rest.map((part) => (part.length === 2 ? part.toUpperCase() : part))].join("-");
}

function notFound(given?: string): NotFound {
  // A model often passes the prompt's text where its id goes: said, with the way to the id.
  if (given !== undefined && !given.startsWith("prm_") && /\s/.test(given.trim())) {
    return new NotFound(
      `Prompt not found: a prompt id looks like prm_…, and this looks like a prompt's text; list_prompts with query ${JSON.stringify(given.slice(0, 60))} finds its id.`,
      "prompt_not_found",
    );
  }
  return new NotFound("Prompt not found; list_prompts shows the brand's prompts and their ids.", "prompt_not_found");
}

// The reads behind list_prompts and every returned prompt: the tag names are the row's own
// tag_names (kept by triggers: migration 0012, PostgreSQL 0005) and sorted here, so a page's rows
// are one query (its text, built per combination of filters, is prepared once by the connection).
const PROMPT_COLUMNS = "p.id, p.text, p.country, p.language, p.archived_at, p.created_at, p.tag_names, p.version";
const ONE_PROMPT = `SELECT ${PROMPT_COLUMNS} FROM prompts p WHERE p.brand_id = ?1 AND p.id = ?2`;
// What a page of list_prompts reads first: for the active prompts (the default), from
// prompts_brand_active_idx alone. The versions alone: bun:sqlite makes every row an object, and the
// ids and creation times beside them took half as long again (12.4 µs a page of 50, against 8.4).
const VERSION_COLUMNS = "p.version";

interface PromptVersionRow {
  /** Which state of the row this is: a random value new at every insert and change (migration 0020, PostgreSQL 0014). */
  version: number;
}

interface PromptSqlRow extends PromptVersionRow {
  id: string;
  created_at: number;
  text: string;
  country: string | null;
  language: string | null;
  archived_at: number | null;
  tag_names: string;
}

interface ListFilter {
  includeArchived: boolean;
  after: readonly [number, string] | null;
  query: string;
  tagId: string | null;
  promptId: string | null;
}

/**
 * One text per combination of filters (each cached by the connection): optional terms written as
 * `?x IS NULL OR …` cost SQLite a plan per row.
 */
function listQuery(brandId: string, filter: ListFilter, limit: number, columns: string): { text: SqlText; params: SqlParam[] } {
  const params: SqlParam[] = [];
  const param = (value: SqlParam): string => {
    params.push(value);
    return `?${params.length}`;
  };
  const terms = [`p.brand_id = ${param(brandId)}`];
  if (!filter.includeArchived) terms.push("p.archived_at IS NULL");
  if (filter.after) {
    // created_at's bound alone first, so that the brand's index is searched from there in order.
    const at = param(filter.after[0]);
    terms.push(`p.created_at >= ${at} AND (p.created_at > ${at} OR p.id > ${param(filter.after[1])})`);
  }
  if (filter.promptId !== null) terms.push(`p.id = ${param(filter.promptId)}`);
  // instr() (strpos() on PostgreSQL) rather than LIKE: the user's text needs no escaping of % and _.
  const query = filter.query === "" ? null : param(filter.query);
  if (filter.tagId !== null) terms.push(`p.id IN (SELECT prompt_id FROM prompt_tags WHERE tag_id = ${param(filter.tagId)})`);
  const limitParam = param(limit);
  // In (created_at, id) order: created_at is strictly increasing per brand (createPrompts), so id only
  // breaks the ties of prompts added before that held.
  const text = (dialect: Dialect): string => {
    const where = query === null ? terms : [...terms, `${dialect === "sqlite" ? "instr" : "strpos"}(p.text_key, ${query}) > 0`];
    return `SELECT ${columns} FROM prompts p WHERE ${where.join(" AND ")} ORDER BY p.created_at, p.id LIMIT ${limitParam}`;
  };
  return { text: { sqlite: text("sqlite"), postgres: text("postgres") }, params };
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

/** The brand's prompt with this text key, archived or not (create_prompts looks up every text it is given; update_prompt its new words). */
async function promptByTextKey(
  db: Queries,
  brandId: string,
  textKey: string,
): Promise<{ id: string; archived_at: number | null } | undefined> {
  return db.get("SELECT id, archived_at FROM prompts WHERE brand_id = ? AND text_key = ?", [brandId, textKey]);
}

async function promptExists(db: Queries, brandId: string, promptId: string): Promise<{ archived_at: number | null } | undefined> {
  return db.get("SELECT archived_at FROM prompts WHERE brand_id = ? AND id = ?", [brandId, promptId]);
}

export async function getPrompt(db: Queries, brandId: string, promptId: string): Promise<PromptView> {
  const row = await db.get<PromptSqlRow>(ONE_PROMPT, [brandId, promptId]);
  if (!row) throw notFound(promptId);
  return view(row);
}

/** The brand's active prompts in the order they were added: what a tracking run asks. */
export async function listActivePrompts(db: Queries, brandId: string): Promise<Array<{ id: string; text: string }>> {
  return db.all("SELECT id, text FROM prompts WHERE brand_id = ? AND archived_at IS NULL ORDER BY created_at, id", [brandId]);
}

/** Ids of the brands that have at least one active prompt (the ones a tracking run has work for). */
export async function listBrandIdsWithActivePrompts(db: Queries): Promise<Set<string>> {
  const rows = await db.all<{ brand_id: string }>("SELECT DISTINCT brand_id FROM prompts WHERE archived_at IS NULL");
  return new Set(rows.map((row) => row.brand_id));
}

/** How many prompts the brand has, archived ones included. */
export async function countPrompts(db: Queries, brandId: string): Promise<number> {
  const row = await db.get<{ n: number }>("SELECT count(*) AS n FROM prompts WHERE brand_id = ?", [brandId]);
  return Number(row?.n ?? 0);
}

/** Ids of the brand's prompts, archived ones included, or only those carrying the tag: the scope of a metric. */
export async function listPromptIds(db: Queries, brandId: string, tagId: string | null = null): Promise<string[]> {
  // Every analytics call over prompts asks for its scope (the statements are cached per text).
  const rows =
    tagId === null
      ? await db.all<{ id: string }>("SELECT id FROM prompts WHERE brand_id = ?", [brandId])
      : await db.all<{ id: string }>(
          "SELECT prompts.id FROM prompts INNER JOIN prompt_tags ON prompt_tags.prompt_id = prompts.id WHERE prompts.brand_id = ? AND prompt_tags.tag_id = ?",
          [brandId, tagId],
        );
  return rows.map((row) => row.id);
}

/**
 * The brand's prompt ids (archived ones included), as listPromptIds gives them, as a subquery of one
 * column, `value`, for a statement that goes over them itself instead of being handed their list
 * (analytics/prompts.ts); `brandParam` is the placeholder that takes the brand id.
 */
export function brandPromptIds(brandParam: string): string {
  return `(SELECT id AS value FROM prompts WHERE brand_id = ${brandParam})`;
}

/** The texts of the given prompts of the brand, by id (another brand's ids are left out). */
export async function getPromptTexts(db: Queries, brandId: string, promptIds: readonly string[]): Promise<Map<string, string>> {
  return new Map([...(await getPromptHeads(db, brandId, promptIds))].map(([id, head]) => [id, head.text]));
}

/** The given prompts' texts and whether each is archived (no longer asked), by id (another brand's ids are left out). */
export async function getPromptHeads(
  db: Queries,
  brandId: string,
  promptIds: readonly string[],
): Promise<Map<string, { text: string; archived: boolean }>> {
  if (promptIds.length === 0) return new Map();
  const rows = await db.all<{ id: string; text: string; archived: number }>(
    `SELECT id, text, CASE WHEN archived_at IS NULL THEN 0 ELSE 1 END AS archived FROM prompts WHERE brand_id = ? AND id IN (${placeholders(promptIds.length)})`,
    [brandId, ...promptIds],
  );
  return new Map(rows.map((row) => [row.id, { text: row.text, archived: Number(row.archived) === 1 }]));
}

/** A prompt as tracking asks it: its text, from its country, and the language its answers come in. */
export interface PromptQuestion {
  text: string;
  country: string | null;
  language: string | null;
}

/** The given prompts of the brand as tracking asks them, by id (another brand's ids are left out). */
export async function getPromptQuestions(db: Queries, brandId: string, promptIds: readonly string[]): Promise<Map<string, PromptQuestion>> {
  if (promptIds.length === 0) return new Map();
  const rows = await db.all<{ id: string } & PromptQuestion>(
    `SELECT id, text, country, language FROM prompts WHERE brand_id = ? AND id IN (${placeholders(promptIds.length)})`,
    [brandId, ...promptIds],
  );
  return new Map(rows.map((row) => [row.id, { text: row.text, country: row.country, language: row.language }]));
}

/** The language of each of the brand's prompts (null where none is set), by id: how tracking reads their answers. */
export async function getPromptLanguages(db: Queries, brandId: string): Promise<Map<string, string | null>> {
  const rows = await db.all<{ id: string; language: string | null }>("SELECT id, language FROM prompts WHERE brand_id = ?", [brandId]);
  return new Map(rows.map((row) => [row.id, row.language]));
}

/** The brand's prompts in the order they were added, filtered by tag (name or id) and text, paged. */
export async function listPrompts(
  db: Queries,
  brandId: string,
  options: { tag?: string; query?: string; promptId?: string; includeArchived?: boolean; limit: number; cursor?: string },
): Promise<{ prompts: PromptView[]; next_cursor: string | null }> {
  const after = decodeCursor(options.cursor, ["number", "string"] as const);
  // One prompt: an id that is none of the brand's is "not found", as everywhere a prompt_id goes.
  const promptId = options.promptId === undefined ? null : (await getPrompt(db, brandId, options.promptId)).id;
  let tagId: string | null = null;
  if (options.tag !== undefined) {
    const tag = await findTag(db, brandId, options.tag);
    if (!tag) throw new NotFound(`Tag "${options.tag}" not found; list_tags shows the brand's tags.`, "tag_not_found");
    tagId = tag.id;
  }
  const query = options.query === undefined ? "" : promptTextKey(options.query);
  const filter: ListFilter = { includeArchived: options.includeArchived === true, after, query, tagId, promptId };
  const kept = keptViewsOf(db);
  // A page of active prompts (the default) reads its rows' versions first, from
  // prompts_brand_active_idx alone; when the views made lately are of those very versions, they are
  // the page. (With the archived ones, that read would be no index's: without the planner's
  // statistics, SQLite sorted the brand's every prompt for it.) Otherwise the page is read whole, as
  // one query.
  if (!filter.includeArchived) {
    const versions = listQuery(brandId, filter, options.limit + 1, VERSION_COLUMNS);
    const rows = await db.all<PromptVersionRow>(versions.text, versions.params);
    const count = Math.min(rows.length, options.limit);
    const views: PromptView[] = [];
    let last: KeptView | undefined;
    for (let i = 0; i < count; i++) {
      last = kept.get(rows[i]!.version);
      if (last?.brandId !== brandId) break;
      views.push(last.view);
    }
    if (views.length === count) {
      // The cursor page() would make of the last row (a row past the page means there is a next one).
      const next = rows.length > options.limit && last ? encodeCursor([last.createdAt, last.view.id]) : null;
      return { prompts: views, next_cursor: next };
    }
  }
  const whole = listQuery(brandId, filter, options.limit + 1, PROMPT_COLUMNS);
  const { items, next } = page(await db.all<PromptSqlRow>(whole.text, whole.params), options.limit, (row) => [row.created_at, row.id]);
  return { prompts: items.map((row) => kept.keep(brandId, row)), next_cursor: next };
}

/** A prompt's view, kept by the version of the row it was made from, with what its page needs besides. */
interface KeptView {
  brandId: string;
  /** The row's created_at, for the cursor of a page that ends with it. */
  createdAt: number;
  view: PromptView;
}

/** Views per generation of KeptViews: at most twice as many are kept (each ~0.3–2 KB). */
const VIEWS_PER_GENERATION = 2_048;

/**
 * The views pages of list_prompts were made of lately, by the version of the row each was made from
 * (random, new at every insert and change of a prompt, so a version names one state of one prompt:
 * two prompts draw the same one with a chance of about 2^-53 a pair; the brand is checked all the
 * same). A page whose rows have not changed since is answered with them, from its versions, without
 * reading and converting every column again (the page's other columns and their views were about a
 * sixth of a list_prompts call's CPU: bench/door.ts). The versions are the database's (triggers), so
 * a change made anywhere, by this process or another, is seen at the next page. The views are shared
 * by the pages that hold them, and never changed.
 *
 * Two generations, the least recently used dropped first at no cost per hit: views are kept in the
 * young one, and one found in the old one moves there; when the young one is full, it becomes the
 * old one and the old one goes. A page listed again and again stays kept whatever else is listed
 * (an export of every prompt, other brands' pages).
 */
class KeptViews {
  private young = new Map<number, KeptView>();
  private old = new Map<number, KeptView>();

  get(version: number): KeptView | undefined {
    const young = this.young.get(version);
    if (young !== undefined) return young;
    const old = this.old.get(version);
    if (old !== undefined) this.put(version, old);
    return old;
  }

  keep(brandId: string, row: PromptSqlRow): PromptView {
    const made = view(row);
    this.put(row.version, { brandId, createdAt: row.created_at, view: made });
    return made;
  }

  private put(version: number, kept: KeptView): void {
    if (this.young.size >= VIEWS_PER_GENERATION && !this.young.has(version)) {
      this.old = this.young;
      this.young = new Map();
    }
    this.young.set(version, kept);
  }
}

const keptViews = new WeakMap<Queries, KeptViews>();

function keptViewsOf(db: Queries): KeptViews {
  let kept = keptViews.get(db);
  if (!kept) {
    kept = new KeptViews();
    keptViews.set(db, kept);
  }
  return kept;
}

/** Rows of prompt_tags for one prompt: `(?, ?), (?, ?)…` and their parameters. */
function promptTagValues(promptId: string, tagIds: readonly string[]): { values: string; params: SqlParam[] } {
  return { values: tagIds.map(() => "(?, ?)").join(", "), params: tagIds.flatMap((tagId) => [promptId, tagId]) };
}

async function setTags(db: Queries, brandId: string, promptId: string, names: readonly string[], field: string): Promise<void> {
  const ids = await ensureTags(db, brandId, names, field);
  await db.run("DELETE FROM prompt_tags WHERE prompt_id = ?", [promptId]);
  if (ids.length > 0) {
    const { values, params } = promptTagValues(promptId, ids);
    await db.run(`INSERT INTO prompt_tags (prompt_id, tag_id) VALUES ${values}`, params);
  }
}

async function addTags(db: Queries, brandId: string, promptId: string, names: readonly string[], field: string): Promise<void> {
  const ids = await ensureTags(db, brandId, names, field);
  if (ids.length > 0) {
    const { values, params } = promptTagValues(promptId, ids);
    await db.run(`INSERT INTO prompt_tags (prompt_id, tag_id) VALUES ${values} ON CONFLICT DO NOTHING`, params);
  }
}

/**
 * Adds prompts. A text the brand already tracks, or one repeated within the call (compared
 * case- and space-insensitively), is reported in `duplicates` and not created; an archived prompt
 * with the same text is restored instead (its history kept): listed in `created`, its id in
 * `restored_ids` too. Tags that do not
 * exist are created. All or nothing: an invalid item fails the whole call.
 */
export async function createPrompts(
  db: Queries,
  brandId: string,
  items: readonly NewPrompt[],
): Promise<{ created: PromptView[]; duplicates: string[]; duplicate_ids: string[]; restored_ids: string[] }> {
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
  return db.transaction(async (tx) => {
    const createdIds: string[] = [];
    // Those of createdIds that were archived, tracked again with their history.
    const restoredIds: string[] = [];
    const duplicates: string[] = [];
    // The prompt each duplicate is, in the same order: the tracked one, or the one created earlier in the call.
    const duplicateIds: string[] = [];
    const seen = new Map<string, string>();
    // created_at is strictly increasing per brand: it orders list_prompts (with the id) in the order
    // the prompts were added, on both databases (PostgreSQL has no rowid).
    await tx.lock(`prompts:${brandId}`);
    const last = (await tx.get<{ at: number | null }>("SELECT max(created_at) AS at FROM prompts WHERE brand_id = ?", [brandId]))?.at;
    let at = Math.max(Date.now(), (last ?? 0) + 1);
    for (const item of prepared) {
      const key = promptTextKey(item.text);
      const earlier = seen.get(key);
      if (earlier !== undefined) {
        duplicates.push(item.given);
        duplicateIds.push(earlier);
        continue;
      }
      const existing = await promptByTextKey(tx, brandId, key);
      if (existing && existing.archived_at === null) {
        duplicates.push(item.given);
        duplicateIds.push(existing.id);
        seen.set(key, existing.id);
        continue;
      }
      if (existing) {
        const sets = ["archived_at = ?"];
        const params: SqlParam[] = [null];
        if (item.country !== null) {
          sets.push("country = ?");
          params.push(item.country);
        }
        if (item.language !== null) {
          sets.push("language = ?");
          params.push(item.language);
        }
        await tx.run(`UPDATE prompts SET ${sets.join(", ")} WHERE id = ?`, [...params, existing.id]);
        await addTags(tx, brandId, existing.id, item.tags, item.field);
        createdIds.push(existing.id);
        restoredIds.push(existing.id);
        seen.set(key, existing.id);
        continue;
      }
      const id = newId("prm");
      await tx.run("INSERT INTO prompts (id, brand_id, text, text_key, country, language, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)", [
        id,
        brandId,
        item.text,
        key,
        item.country,
        item.language,
        at++,
      ]);
      await addTags(tx, brandId, id, item.tags, item.field);
      createdIds.push(id);
      seen.set(key, id);
    }
    const created: PromptView[] = [];
    for (const id of createdIds) created.push(await getPrompt(tx, brandId, id));
    return { created, duplicates, duplicate_ids: duplicateIds, restored_ids: restoredIds };
  });
}

/** Changes the fields given; `tags` replaces the prompt's tags (creating unknown ones). */
export async function updatePrompt(db: Queries, brandId: string, promptId: string, patch: PromptPatch): Promise<PromptView> {
  return db.transaction(async (tx) => {
    if (!(await promptExists(tx, brandId, promptId))) throw notFound();
    const changes: { text?: string; text_key?: string; country?: string | null; language?: string | null } = {};
    if (patch.text !== undefined) {
      const text = normalizePromptText(patch.text);
      const key = promptTextKey(text);
      const clash = await promptByTextKey(tx, brandId, key);
      if (clash && clash.id !== promptId) {
        // Named, and where to find it: an archived one is not in list_prompts' default list.
        throw new Conflict(
          clash.archived_at === null
            ? `Another prompt of this brand (${clash.id}) already has this text (compared ignoring case and spaces).`
            : `An archived prompt of this brand (${clash.id}) already has this text (compared ignoring case and spaces): create_prompts with this text restores it with its history (list_prompts with include_archived shows it).`,
          "prompt_exists",
        );
      }
      changes.text = text;
      changes.text_key = key;
    }
    if (patch.country !== undefined) changes.country = normalizeCountry(patch.country);
    if (patch.language !== undefined) changes.language = normalizeLanguage(patch.language);
    const columns = Object.keys(changes) as Array<keyof typeof changes>;
    if (columns.length > 0) {
      await tx.run(`UPDATE prompts SET ${columns.map((column) => `${column} = ?`).join(", ")} WHERE brand_id = ? AND id = ?`, [
        ...columns.map((column) => changes[column] ?? null),
        brandId,
        promptId,
      ]);
    }
    if (patch.tags !== undefined) await setTags(tx, brandId, promptId, patch.tags, "tags");
    return getPrompt(tx, brandId, promptId);
  });
}

/** Archives the prompt: tracking skips it, its stored answers stay. Archiving twice is harmless. */
export async function archivePrompt(db: Queries, brandId: string, promptId: string): Promise<PromptView> {
  const current = await promptExists(db, brandId, promptId);
  if (!current) throw notFound();
  if (current.archived_at === null) {
    await db.run("UPDATE prompts SET archived_at = ? WHERE brand_id = ? AND id = ?", [Date.now(), brandId, promptId]);
  }
  return getPrompt(db, brandId, promptId);
}

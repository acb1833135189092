// Tags group a brand's prompts (by product line, funnel stage, market…). Names are unique per brand,
// case-insensitively; the stored `name_key` is labelKey's (the name composed and lowercased).

import { type Queries } from "../db/queries";
import { Conflict, Invalid, NotFound } from "../errors";
import { iso, newId } from "../ids";
import { cleanLabel, labelKey, labelLength } from "../labels";
import { decodeCursor, page } from "../paging";

import { TAG_NAME_MAX } from "./limits";

export { TAG_NAME_MAX };

export interface TagView {
  id: string;
  name: string;
  color: string | null;
  prompt_count: number;
  created_at: string;
}

export function tagNameKey(name: string): string {
  return labelKey(name);
}

/** Composed, without invisible characters, trimmed, spaces collapsed (cleanLabel); 1 to TAG_NAME_MAX characters. */
export function normalizeTagName(value: string, field = "name"): string {
  const name = cleanLabel(value);
  if (name.length < 1 || labelLength(name) > TAG_NAME_MAX) {
    throw new Invalid(`${field}: a tag name must be 1 to ${TAG_NAME_MAX} characters.`, "invalid_tag_name");
  }
  return name;
}

/** `#rrggbb` (stored lowercase), or null for none. */
export function normalizeTagColor(value: string | null | undefined): string | null {
  if (value === null || value === undefined || value === "") return null;
  if (!/^#[0-9a-f]{6}$/i.test(value)) {
    throw new Invalid(`color: "${value.slice(0, 20)}" is not a colour; give one as #rrggbb, such as #3b82f6.`, "invalid_color");
  }
  return value.toLowerCase();
}

// The tag's columns and its prompt count, as every read of a tag returns them.
const TAG_COLUMNS = `id, brand_id, name, name_key, color, created_at,
  (SELECT count(*) FROM prompt_tags WHERE prompt_tags.tag_id = tags.id) AS prompt_count`;

interface TagSqlRow {
  id: string;
  brand_id: string;
  name: string;
  name_key: string;
  color: string | null;
  created_at: number;
  prompt_count: number;
}

function view(row: TagSqlRow): TagView {
  return { id: row.id, name: row.name, color: row.color, prompt_count: row.prompt_count, created_at: iso(row.created_at) };
}

function conflict(name: string): Conflict {
  return new Conflict(
    `A tag named "${name}" already exists for this brand (tag names ignore case); use it or pick another name.`,
    "tag_exists",
  );
}

/** create_prompts looks up every tag of every prompt it is given (the statement is cached per text). */
async function findByKey(db: Queries, brandId: string, key: string): Promise<{ id: string } | undefined> {
  return db.get<{ id: string }>("SELECT id FROM tags WHERE brand_id = ? AND name_key = ?", [brandId, key]);
}

/** A tag of the brand by its id, or by its name (case-insensitive: names are unique per brand), as clients often give it. */
export async function getTag(db: Queries, brandId: string, tagId: string): Promise<TagView> {
  const row =
    (await db.get<TagSqlRow>(`SELECT ${TAG_COLUMNS} FROM tags WHERE brand_id = ? AND id = ?`, [brandId, tagId])) ??
    (await db.get<TagSqlRow>(`SELECT ${TAG_COLUMNS} FROM tags WHERE brand_id = ? AND name_key = ?`, [brandId, tagNameKey(tagId)]));
  if (!row) throw new NotFound("Tag not found; list_tags shows the brand's tags and their ids.", "tag_not_found");
  return view(row);
}

/** A tag of the brand by id or by name (case-insensitive); null when the brand has none such. */
export async function findTag(db: Queries, brandId: string, idOrName: string): Promise<{ id: string; name: string } | null> {
  const row = await db.get<{ id: string; name: string }>(
    "SELECT id, name FROM tags WHERE brand_id = ? AND (id = ? OR name_key = ?) LIMIT 1",
    [brandId, idOrName, tagNameKey(idOrName.trim())],
  );
  return row ?? null;
}

/** The brand's tags by name (case-insensitive), paged. */
export async function listTags(
  db: Queries,
  brandId: string,
  options: { limit: number; cursor?: string },
): Promise<{ tags: TagView[]; next_cursor: string | null }> {
  const after = decodeCursor(options.cursor, ["string", "string"] as const);
  const rows = after
    ? await db.all<TagSqlRow>(
        `SELECT ${TAG_COLUMNS} FROM tags WHERE brand_id = ?1 AND (name_key > ?2 OR (name_key = ?2 AND id > ?3))
         ORDER BY name_key, id LIMIT ?4`,
        [brandId, after[0], after[1], options.limit + 1],
      )
    : await db.all<TagSqlRow>(`SELECT ${TAG_COLUMNS} FROM tags WHERE brand_id = ? ORDER BY name_key, id LIMIT ?`, [
        brandId,
        options.limit + 1,
      ]);
  const { items, next } = page(rows, options.limit, (r) => [r.name_key, r.id]);
  return { tags: items.map(view), next_cursor: next };
}

export async function createTag(db: Queries, brandId: string, input: { name: string; color?: string | null }): Promise<TagView> {
  const name = normalizeTagName(input.name);
  const color = normalizeTagColor(input.color);
  return db.transaction(async (tx) => {
    if (await findByKey(tx, brandId, tagNameKey(name))) throw conflict(name);
    const row: TagSqlRow = {
      id: newId("tag"),
      brand_id: brandId,
      name,
      name_key: tagNameKey(name),
      color,
      created_at: Date.now(),
      prompt_count: 0,
    };
    await tx.run("INSERT INTO tags (id, brand_id, name, name_key, color, created_at) VALUES (?, ?, ?, ?, ?, ?)", [
      row.id,
      row.brand_id,
      row.name,
      row.name_key,
      row.color,
      row.created_at,
    ]);
    return view(row);
  });
}

export async function updateTag(
  db: Queries,
  brandId: string,
  tagId: string,
  patch: { name?: string; color?: string | null },
): Promise<TagView> {
  return db.transaction(async (tx) => {
    const current = await getTag(tx, brandId, tagId);
    const changes: { name?: string; name_key?: string; color?: string | null } = {};
    if (patch.name !== undefined) {
      const name = normalizeTagName(patch.name);
      const clash = await findByKey(tx, brandId, tagNameKey(name));
      if (clash && clash.id !== current.id) throw conflict(name);
      changes.name = name;
      changes.name_key = tagNameKey(name);
    }
    if (patch.color !== undefined) changes.color = normalizeTagColor(patch.color);
    const columns = Object.keys(changes) as Array<keyof typeof changes>;
    if (columns.length > 0) {
      await tx.run(`UPDATE tags SET ${columns.map((column) => `${column} = ?`).join(", ")} WHERE brand_id = ? AND id = ?`, [
        ...columns.map((column) => changes[column] ?? null),
        brandId,
        current.id,
      ]);
    }
    return { ...current, name: changes.name ?? current.name, color: changes.color !== undefined ? changes.color : current.color };
  });
}

/** Deletes the tag and removes it from its prompts (the prompts stay); returns it as it was. */
export async function deleteTag(db: Queries, brandId: string, tagId: string): Promise<TagView> {
  return db.transaction(async (tx) => {
    const current = await getTag(tx, brandId, tagId);
    await tx.run("DELETE FROM tags WHERE brand_id = ? AND id = ?", [brandId, current.id]);
    return current;
  });
}

/**
 * Ids of the named tags of the brand, creating those that do not exist (inside the caller's
 * transaction). Names repeated case-insensitively count once.
 */
export async function ensureTags(db: Queries, brandId: string, names: readonly string[], field = "tags"): Promise<string[]> {
  const ids: string[] = [];
  const seen = new Set<string>();
  for (const raw of names) {
    const name = normalizeTagName(raw, field);
    const key = tagNameKey(name);
    if (seen.has(key)) continue;
    seen.add(key);
    const existing = await findByKey(db, brandId, key);
    if (existing) {
      ids.push(existing.id);
      continue;
    }
    const id = newId("tag");
    await db.run("INSERT INTO tags (id, brand_id, name, name_key, color, created_at) VALUES (?, ?, ?, ?, ?, ?)", [
      id,
      brandId,
      name,
      key,
      null,
      Date.now(),
    ]);
    ids.push(id);
  }
  return ids;
}

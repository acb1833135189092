// Tags group a brand's prompts (by product line, funnel stage, market…). Names are unique per brand,
// case-insensitively; the stored `name_key` is the lowercased name.
import { and, asc, eq, gt, or, sql } from "drizzle-orm";
import { type Db } from "../db/client";
import { promptTags, tags } from "../db/schema";
import { Conflict, Invalid, NotFound } from "../errors";
import { iso, newId } from "../ids";
import { decodeCursor, page } from "../paging";

export const TAG_NAME_MAX = 50;

export interface TagView {
  id: string;
  name: string;
  color: string | null;
  prompt_count: number;
  created_at: string;
}

type TagRow = typeof tags.$inferSelect;

export function tagNameKey(name: string): string {
  return name.toLowerCase();
}

/** Trims and collapses spaces; 1 to TAG_NAME_MAX characters. */
export function normalizeTagName(value: string, field = "name"): string {
  const name = value.trim().replace(/\s+/g, " ");
  if (name.length < 1 || name.length > TAG_NAME_MAX) {
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

const promptCount = sql<number>`(SELECT count(*) FROM ${promptTags} WHERE ${promptTags.tagId} = ${tags.id})`;

function view(row: TagRow, count: number): TagView {
  return { id: row.id, name: row.name, color: row.color, prompt_count: count, created_at: iso(row.createdAt) };
}

function conflict(name: string): Conflict {
  return new Conflict(
    `A tag named "${name}" already exists for this brand (tag names ignore case); use it or pick another name.`,
    "tag_exists",
  );
}

/** Prepared: create_prompts looks up every tag of every prompt it is given. */
function findByKey(db: Db, brandId: string, key: string): TagRow | undefined {
  const byKey = db.prepared("prompts.tagByKey", () =>
    db.orm
      .select()
      .from(tags)
      .where(and(eq(tags.brandId, sql.placeholder("brandId")), eq(tags.nameKey, sql.placeholder("key"))))
      .prepare(),
  );
  return byKey.get({ brandId, key });
}

export function getTag(db: Db, brandId: string, tagId: string): TagView {
  const row = db.orm
    .select({ tag: tags, count: promptCount })
    .from(tags)
    .where(and(eq(tags.brandId, brandId), eq(tags.id, tagId)))
    .get();
  if (!row) throw new NotFound("Tag not found; list_tags shows the brand's tags and their ids.", "tag_not_found");
  return view(row.tag, row.count);
}

/** A tag of the brand by id or by name (case-insensitive); null when the brand has none such. */
export function findTag(db: Db, brandId: string, idOrName: string): { id: string; name: string } | null {
  const row = db.orm
    .select({ id: tags.id, name: tags.name })
    .from(tags)
    .where(and(eq(tags.brandId, brandId), or(eq(tags.id, idOrName), eq(tags.nameKey, tagNameKey(idOrName.trim())))))
    .limit(1)
    .get();
  return row ?? null;
}

/** The brand's tags by name (case-insensitive), paged. */
export function listTags(
  db: Db,
  brandId: string,
  options: { limit: number; cursor?: string },
): { tags: TagView[]; next_cursor: string | null } {
  const after = decodeCursor(options.cursor, ["string", "string"] as const);
  const rows = db.orm
    .select({ tag: tags, count: promptCount })
    .from(tags)
    .where(
      and(
        eq(tags.brandId, brandId),
        after ? or(gt(tags.nameKey, after[0]), and(eq(tags.nameKey, after[0]), gt(tags.id, after[1]))) : undefined,
      ),
    )
    .orderBy(asc(tags.nameKey), asc(tags.id))
    .limit(options.limit + 1)
    .all();
  const { items, next } = page(rows, options.limit, (r) => [r.tag.nameKey, r.tag.id]);
  return { tags: items.map((r) => view(r.tag, r.count)), next_cursor: next };
}

export function createTag(db: Db, brandId: string, input: { name: string; color?: string | null }): TagView {
  const name = normalizeTagName(input.name);
  const color = normalizeTagColor(input.color);
  return db.sqlite
    .transaction(() => {
      if (findByKey(db, brandId, tagNameKey(name))) throw conflict(name);
      const row: TagRow = { id: newId("tag"), brandId, name, nameKey: tagNameKey(name), color, createdAt: Date.now() };
      db.orm.insert(tags).values(row).run();
      return view(row, 0);
    })
    .immediate();
}

export function updateTag(db: Db, brandId: string, tagId: string, patch: { name?: string; color?: string | null }): TagView {
  return db.sqlite
    .transaction(() => {
      const current = getTag(db, brandId, tagId);
      const changes: Partial<TagRow> = {};
      if (patch.name !== undefined) {
        const name = normalizeTagName(patch.name);
        const clash = findByKey(db, brandId, tagNameKey(name));
        if (clash && clash.id !== tagId) throw conflict(name);
        changes.name = name;
        changes.nameKey = tagNameKey(name);
      }
      if (patch.color !== undefined) changes.color = normalizeTagColor(patch.color);
      if (Object.keys(changes).length > 0) {
        db.orm
          .update(tags)
          .set(changes)
          .where(and(eq(tags.brandId, brandId), eq(tags.id, tagId)))
          .run();
      }
      return { ...current, name: changes.name ?? current.name, color: changes.color !== undefined ? changes.color : current.color };
    })
    .immediate();
}

/** Deletes the tag and removes it from its prompts (the prompts stay); returns it as it was. */
export function deleteTag(db: Db, brandId: string, tagId: string): TagView {
  return db.sqlite
    .transaction(() => {
      const current = getTag(db, brandId, tagId);
      db.orm
        .delete(tags)
        .where(and(eq(tags.brandId, brandId), eq(tags.id, tagId)))
        .run();
      return current;
    })
    .immediate();
}

/**
 * Ids of the named tags of the brand, creating those that do not exist (inside the caller's
 * transaction). Names repeated case-insensitively count once.
 */
export function ensureTags(db: Db, brandId: string, names: readonly string[], field = "tags"): string[] {
  const ids: string[] = [];
  const seen = new Set<string>();
  for (const raw of names) {
    const name = normalizeTagName(raw, field);
    const key = tagNameKey(name);
    if (seen.has(key)) continue;
    seen.add(key);
    const existing = findByKey(db, brandId, key);
    if (existing) {
      ids.push(existing.id);
      continue;
    }
    const id = newId("tag");
    db.orm.insert(tags).values({ id, brandId, name, nameKey: key, color: null, createdAt: Date.now() }).run();
    ids.push(id);
  }
  return ids;
}

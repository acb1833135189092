// Opaque keyset cursors for the configuration lists (prompts, tags, competitors): the position of
// the last item of a page, base64url-encoded. A cursor only says where to resume; every query is
// still keyed by the brand from the verified credential, so a cursor carries no authority.
import { Invalid } from "./errors";

export const DEFAULT_LIMIT = 50;
export const MAX_LIMIT = 200;

export type CursorValue = string | number;

export function encodeCursor(values: readonly CursorValue[]): string {
  return Buffer.from(JSON.stringify(values)).toString("base64url");
}

/** Decodes a cursor made by encodeCursor with values of the given kinds; anything else is Invalid. */
export function decodeCursor<const K extends readonly ("string" | "number")[]>(
  cursor: string | undefined,
  kinds: K,
): { [I in keyof K]: K[I] extends "string" ? string : number } | null {
  if (cursor === undefined || cursor === "") return null;
  const invalid = () => new Invalid("cursor: pass back the next_cursor of a previous result unchanged.", "invalid_cursor");
  let values: unknown;
  try {
    values = JSON.parse(Buffer.from(cursor, "base64url").toString("utf8"));
  } catch {
    throw invalid();
  }
  if (!Array.isArray(values) || values.length !== kinds.length) throw invalid();
  kinds.forEach((kind, i) => {
    const value: unknown = values[i];
    if (typeof value !== kind || (kind === "number" && !Number.isSafeInteger(value))) throw invalid();
  });
  return values as { [I in keyof K]: K[I] extends "string" ? string : number };
}

/** Splits `limit + 1` fetched rows into the page and the cursor of its last item (null at the end). */
export function page<T>(rows: T[], limit: number, keyOf: (row: T) => readonly CursorValue[]): { items: T[]; next: string | null } {
  if (rows.length <= limit) return { items: rows, next: null };
  const items = rows.slice(0, limit);
  return { items, next: encodeCursor(keyOf(items[items.length - 1]!)) };
}

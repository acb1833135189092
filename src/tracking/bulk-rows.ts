// Multi-row statements for bulk writes (the demo's load): many rows per round trip, which PostgreSQL
// needs (~1 ms a statement) and SQLite does not mind. A statement holds a power of two of rows, so a
// table's writes use a handful of distinct texts (each prepared once per connection) whatever the
// row counts.
import { type Queries, type SqlParam } from "../db/queries";

/** Below both databases' parameter limits (SQLite 32,766, PostgreSQL 65,535). */
const MAX_PARAMS = 16_000;
const MAX_ROWS = 512;

const texts = new Map<string, string>();

/** `head` VALUES (?, …), … `tail` for `rows` rows of `width` values; cached per shape. */
function rowsText(head: string, width: number, rows: number, tail: string): string {
  const key = `${rows}\u0000${width}\u0000${head}\u0000${tail}`;
  let text = texts.get(key);
  if (text === undefined) {
    const row = `(${Array.from({ length: width }, () => "?").join(", ")})`;
    text = `${head} VALUES ${Array.from({ length: rows }, () => row).join(", ")} ${tail}`;
    texts.set(key, text);
  }
  return text;
}

/** The rows of the next statement: the largest power of two that fits `left` and the limits. */
export function rowsPerStatement(left: number, width: number): number {
  const cap = Math.min(MAX_ROWS, Math.floor(MAX_PARAMS / width));
  let n = 1;
  while (n * 2 <= Math.min(left, cap)) n *= 2;
  return n;
}

/**
 * Writes `rows` (each `width` values, in the order of `head`'s columns) with `head VALUES … tail`:
 * `head` is `INSERT INTO t (a, b, …)`, `tail` an ON CONFLICT clause or empty. Rows go in their order.
 */
export async function writeRows(tx: Queries, head: string, width: number, rows: readonly SqlParam[][], tail = ""): Promise<void> {
  for (let start = 0; start < rows.length; ) {
    const n = rowsPerStatement(rows.length - start, width);
    const params: SqlParam[] = [];
    for (let k = start; k < start + n; k++) {
      const row = rows[k]!;
      if (row.length !== width) throw new Error(`a row of ${row.length} values for ${width} columns`);
      for (const value of row) params.push(value);
    }
    await tx.run(rowsText(head, width, n, tail), params);
    start += n;
  }
}

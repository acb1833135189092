// File snapshots for tests: a committed JSON file that a value must equal. A missing file is a
// failure, never a silent first write, so a snapshot deleted by mistake (or never committed) cannot
// make its test pass; `UPDATE_SNAPSHOTS=1` writes the files on purpose, and the diff is reviewed.
import { existsSync, readFileSync, writeFileSync } from "node:fs";

export const UPDATING_SNAPSHOTS = process.env.UPDATE_SNAPSHOTS === "1";

/**
 * What the snapshot at `file` holds, after writing `value` there when `update` is true. Throws when
 * the file is missing and `update` is false.
 */
export function readSnapshot(file: string, value: unknown, update = UPDATING_SNAPSHOTS): unknown {
  if (update) writeFileSync(file, `${JSON.stringify(value, null, 2)}\n`);
  else if (!existsSync(file)) {
    throw new Error(`${file} is missing: create it with UPDATE_SNAPSHOTS=1 (bun run snapshots), review it and commit it`);
  }
  return JSON.parse(readFileSync(file, "utf8"));
}

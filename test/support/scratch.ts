// Temporary directories for tests and benchmarks, removed when the process exits: a test that fails
// half-way (or one that only needs a config file) must not leave its directory in /tmp.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const made = new Set<string>();

/** Removes every directory made so far: at exit, and after the whole suite (bunfig's test preload). */
export function removeScratchDirs(): void {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
  made.clear();
}

// `bun test` emits no "exit" event; test/support/preload.ts covers it.
process.once("exit", removeScratchDirs);

/** A new empty directory under the system's temporary directory, named `prefix` plus a random part. */
export function scratchDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.add(dir);
  return dir;
}

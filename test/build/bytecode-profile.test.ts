// The build's profiling run (build/bytecode-profile.ts) fails with the reason when the executable it
// runs cannot serve its day: stand-in executables (shell scripts) that fail where a broken build would.
import { afterEach, beforeEach, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { recordBytecodeOrder } from "../../build/bytecode-profile";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "spyglass-profile-test-"));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

function standIn(script: string): string {
  const path = join(dir, "spyglass");
  writeFileSync(path, `#!/bin/sh\n${script}\n`);
  chmodSync(path, 0o755);
  return path;
}

const scratchDirs = () =>
  readdirSync(tmpdir())
    .filter((name) => name.startsWith("spyglass-bytecode-"))
    .sort();

test("a seeding that fails fails the run, with what it said; no scratch directory is left", async () => {
  const before = scratchDirs();
  const binary = standIn('echo "the database is locked" >&2; exit 3');
  const error = await recordBytecodeOrder(binary, join(dir, "order.txt")).catch((e: Error) => e);
  expect(error).toBeInstanceOf(Error);
  expect((error as Error).message).toContain("`spyglass demo` failed (exit 3): the database is locked");
  expect(scratchDirs()).toEqual(before);
});

test("a server that stops before it listens fails the run, with its exit code and what it said", async () => {
  const demo = JSON.stringify({
    login: { email: "a@b.c", password: "x" },
    brand: { id: "b", site_key: "k" },
    api_key: "s",
    article: { slug: "a" },
  });
  const binary = standIn(`if [ "$1" = demo ]; then echo '${demo}'; exit 0; fi\necho "port 0 refused" >&2; exit 2`);
  const order = join(dir, "order.txt");
  const error = await recordBytecodeOrder(binary, order).catch((e: Error) => e);
  expect((error as Error).message).toContain("`spyglass serve` stopped before it was listening");
  expect((error as Error).message).toContain("exit 2, port 0 refused");
  expect(existsSync(order)).toBe(false);
});

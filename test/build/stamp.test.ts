// The build stamp (build/stamp.ts): what makes the end-to-end tests refuse a binary compiled from
// other sources than the ones they run against.
import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sourceStamp, stampFileOf } from "../../build/stamp";
import { requireBinary } from "../support/binary";

let root: string;

function write(path: string, text: string): void {
  mkdirSync(join(root, path, ".."), { recursive: true });
  writeFileSync(join(root, path), text);
}

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), "spyglass-stamp-"));
  write("src/main.ts", "console.log(1);\n");
  write("src/content/render.ts", "export {};\n");
  write("drizzle/0000_init.sql", "create table t (x);\n");
  write("build/compile.ts", "// build\n");
  write("package.json", "{}\n");
  write("bun.lock", "{}\n");
  write("README.md", "docs\n");
  write("test/a.test.ts", "// a test\n");
});

afterEach(() => rmSync(root, { recursive: true, force: true }));

describe("sourceStamp", () => {
  test("changes when a source, a migration, a build script, package.json or the lockfile changes", () => {
    const before = sourceStamp(root);
    expect(before).toMatch(/^[0-9a-f]{64}$/);
    expect(sourceStamp(root)).toBe(before);
    for (const [path, text] of [
      ["src/content/render.ts", "export const x = 1;\n"],
      ["src/new-file.ts", ""],
      ["drizzle/0001_more.sql", "alter table t add y;\n"],
      ["build/compile.ts", "// build, changed\n"],
      ["package.json", '{"version":"2"}\n'],
      ["bun.lock", '{"lockfileVersion":2}\n'],
    ] as const) {
      const previous = sourceStamp(root);
      write(path, text);
      expect({ path, changed: sourceStamp(root) !== previous }).toEqual({ path, changed: true });
    }
  });

  test("a file moved to another path changes it, even with the same content", () => {
    const before = sourceStamp(root);
    rmSync(join(root, "src/content/render.ts"));
    write("src/content/renderer.ts", "export {};\n");
    expect(sourceStamp(root)).not.toBe(before);
  });

  test("does not change for documentation or tests", () => {
    const before = sourceStamp(root);
    write("README.md", "other docs\n");
    write("test/b.test.ts", "// another test\n");
    expect(sourceStamp(root)).toBe(before);
  });
});

describe("requireBinary", () => {
  test("accepts a binary whose stamp matches the sources", () => {
    const binary = join(root, "dist/spyglass");
    write("dist/spyglass", "#!/bin/sh\n");
    writeFileSync(stampFileOf(binary), `${sourceStamp(root)}\n`);
    expect(requireBinary(binary, root)).toBe(binary);
  });

  test("refuses a binary built from other sources, saying how to rebuild it", () => {
    const binary = join(root, "dist/spyglass");
    write("dist/spyglass", "#!/bin/sh\n");
    writeFileSync(stampFileOf(binary), `${sourceStamp(root)}\n`);
    write("src/main.ts", "console.log(2);\n");
    expect(() => requireBinary(binary, root)).toThrow(
      `${binary} is stale: it was built from other sources than these; compile it with \`bun run build/compile.ts\``,
    );
  });

  test("refuses a binary without a stamp, and a missing binary", () => {
    const binary = join(root, "dist/spyglass");
    expect(() => requireBinary(binary, root)).toThrow(`${binary} is missing: compile it with \`bun run build/compile.ts\``);
    write("dist/spyglass", "#!/bin/sh\n");
    expect(() => requireBinary(binary, root)).toThrow(`${binary} is stale: it has no build stamp (${binary}.stamp)`);
  });
});

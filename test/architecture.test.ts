// The house rules of STYLE.md, checked on the real import graph of src/: a feature folder owns its
// tables (others call its service functions), nothing but main.ts and server.ts imports app.ts, and
// no two feature folders depend on each other, directly or around a longer cycle. And one rule of the
// suite itself: a test file's code for PostgreSQL alone runs somewhere (build.sh's PostgreSQL pass).
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

const SRC = resolve(import.meta.dir, "../src");
const REPO = resolve(import.meta.dir, "..");

/** Each table's owning feature folder: only that folder's files query it. */
const OWNER: Record<string, string> = {
  accounts: "accounts",
  sessions: "accounts",
  brands: "brands",
  api_keys: "keys",
  prompts: "prompts",
  tags: "prompts",
  prompt_tags: "prompts",
  competitors: "competitors",
  tracking_runs: "tracking",
  tracking_tasks: "tracking",
  roster_versions: "tracking",
  answers: "tracking",
  mentions: "tracking",
  citations: "tracking",
  answer_days: "tracking",
  mention_days: "tracking",
  citation_url_days: "tracking",
  citation_domain_days: "tracking",
  prompt_days: "tracking",
  prompt_coverage_days: "tracking",
  prompt_windows: "tracking",
  prompt_window_state: "tracking",
  articles: "content",
  oauth_clients: "oauth",
  oauth_codes: "oauth",
  oauth_grants: "oauth",
  oauth_tokens: "oauth",
};

/** analytics/ is the read side of tracking's answer tables: it may query them, and nothing else. */
const READ_ACCESS: Record<string, readonly string[]> = {
  analytics: [
    "answers",
    "mentions",
    "citations",
    "answer_days",
    "mention_days",
    "citation_url_days",
    "citation_domain_days",
    "prompt_days",
    "prompt_coverage_days",
    "prompt_windows",
    "prompt_window_state",
  ],
};

/** Folders of src/ that are infrastructure rather than features: db/ defines every table. */
const INFRASTRUCTURE = new Set(["db"]);

interface SourceFile {
  /** Path relative to src/, such as "keys/service.ts". */
  path: string;
  /** Top-level folder, or null for a file directly in src/. */
  folder: string | null;
  text: string;
  /** Resolved src-relative paths of the modules it imports or re-exports (type-only included). */
  imports: Array<{ target: string; names: string[] }>;
}

function listTs(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = join(dir, entry.name);
    if (entry.isDirectory()) return listTs(full);
    return /\.tsx?$/.test(entry.name) && !entry.name.endsWith(".d.ts") ? [full] : [];
  });
}

function withoutComments(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/(^|[^:"'`\\])\/\/.*$/gm, "$1");
}

const IMPORT = /(?:^|\n)\s*(?:import|export)\s+(?:type\s+)?([\s\S]*?)\s*from\s*["']([^"']+)["']/g;
/** `import "./x"` for its side effects, and `import("./x")`. */
const BARE_IMPORT = /(?:^|\n)\s*import\s*["']([^"']+)["']|\bimport\(\s*["']([^"']+)["']\s*\)/g;

function resolveImport(fromFile: string, specifier: string): string | null {
  if (!specifier.startsWith(".")) return null;
  const base = resolve(dirname(fromFile), specifier);
  for (const candidate of [`${base}.ts`, `${base}.tsx`, join(base, "index.ts"), join(base, "index.tsx"), base]) {
    if (/\.tsx?$/.test(candidate) && files.has(candidate)) return relative(SRC, candidate);
  }
  return null;
}

const files = new Set(listTs(SRC));

function parse(full: string): SourceFile {
  const text = withoutComments(readFileSync(full, "utf8"));
  const path = relative(SRC, full);
  const imports: SourceFile["imports"] = [];
  for (const match of text.matchAll(IMPORT)) {
    const target = resolveImport(full, match[2]!);
    if (target === null) continue;
    const names = [...(match[1] ?? "").matchAll(/(?:type\s+)?([A-Za-z_$][\w$]*)(?:\s+as\s+[\w$]+)?/g)].map((m) => m[1]!);
    imports.push({ target, names });
  }
  for (const match of text.matchAll(BARE_IMPORT)) {
    const target = resolveImport(full, (match[1] ?? match[2])!);
    if (target !== null) imports.push({ target, names: [] });
  }
  return { path, folder: path.includes("/") ? path.slice(0, path.indexOf("/")) : null, text, imports };
}

const sources = [...files].map(parse);

/** The schema's exported table constants, by the SQL name of their table. */
const TABLE_OF_EXPORT = new Map(
  [...readFileSync(join(SRC, "db/schema.ts"), "utf8").matchAll(/export const (\w+) = sqliteTable\(\s*"(\w+)"/g)].map((m) => [m[1]!, m[2]!]),
);

function mayUse(folder: string, table: string): boolean {
  return OWNER[table] === folder || (READ_ACCESS[folder]?.includes(table) ?? false);
}

/** Tables a file reaches outside its folder's ownership: through the schema, or named in SQL. */
export function tableViolations(file: SourceFile): string[] {
  const folder = file.folder;
  if (folder === null || INFRASTRUCTURE.has(folder)) return [];
  const out: string[] = [];
  for (const { target, names } of file.imports) {
    if (target !== "db/schema.ts") continue;
    for (const name of names) {
      const table = TABLE_OF_EXPORT.get(name);
      if (table && !mayUse(folder, table)) out.push(`${file.path} imports the ${table} table (owned by ${OWNER[table]}/)`);
    }
  }
  const sql = /\b(?:FROM|JOIN|INTO|UPDATE|TABLE)\s+"?([a-z_]+)"?/gi;
  for (const match of file.text.matchAll(sql)) {
    const table = match[1]!.toLowerCase();
    if (table in OWNER && !mayUse(folder, table)) out.push(`${file.path} names the ${table} table in SQL (owned by ${OWNER[table]}/)`);
  }
  return out;
}

/** Every cycle in the graph of folder → folder imports, each as the list of folders around it. */
export function folderCycles(edges: ReadonlyMap<string, ReadonlySet<string>>): string[][] {
  const cycles: string[][] = [];
  const seen = new Set<string>();
  const walk = (start: string, node: string, path: string[]): void => {
    for (const next of edges.get(node) ?? []) {
      if (next === start) {
        const key = [...path].sort().join(">");
        if (!seen.has(key)) {
          seen.add(key);
          cycles.push([...path, start]);
        }
      } else if (!path.includes(next) && next > start) {
        walk(start, next, [...path, next]);
      }
    }
  };
  for (const start of [...edges.keys()].sort()) walk(start, start, [start]);
  return cycles;
}

function folderGraph(all: readonly SourceFile[]): Map<string, Set<string>> {
  const edges = new Map<string, Set<string>>();
  for (const file of all) {
    if (file.folder === null) continue;
    for (const { target } of file.imports) {
      const to = target.includes("/") ? target.slice(0, target.indexOf("/")) : null;
      if (to === null || to === file.folder) continue;
      let set = edges.get(file.folder);
      if (!set) edges.set(file.folder, (set = new Set()));
      set.add(to);
    }
  }
  return edges;
}

/** The entries (files and folders) of build.sh's POSTGRES_TESTS: what its PostgreSQL pass runs. */
export function postgresPass(buildScript: string): string[] {
  const list = /^POSTGRES_TESTS=\(([^)]*)\)/m.exec(buildScript);
  if (!list) throw new Error("build.sh has no POSTGRES_TESTS=(…) list");
  return list[1]!.split(/\s+/).filter(Boolean);
}

/**
 * Whether a test file has a side that runs only when it was given PostgreSQL: it compares a
 * database's name ("postgres", "sqlite") with the one it got. A test kept to SQLite
 * (test.if(… === "sqlite")) or skipped on PostgreSQL (test.skipIf(… === "postgres")) has none.
 */
export function hasPostgresSide(text: string): boolean {
  const code = withoutComments(text);
  if (/"(?:postgres|sqlite)"\s*[!=]==/.test(code)) return true;
  return [...code.matchAll(/([!=])==\s*"(postgres|sqlite)"/g)].some((match) => {
    const guard = /\b(?:test|describe|it)\.(if|skipIf)\(\s*[\w.]+\s*$/.exec(code.slice(0, match.index));
    const noPostgresSide = guard !== null && match[1] === "=" && (guard[1] === "if" ? match[2] === "sqlite" : match[2] === "postgres");
    return !noPostgresSide;
  });
}

/** The argument text of each call of sandbox(…) in `code`. */
function sandboxArguments(code: string): string[] {
  return [...code.matchAll(/(?<![\w.])sandbox\(/g)].map((match) => {
    const start = match.index! + match[0].length;
    let depth = 1;
    let end = start;
    for (; end < code.length && depth > 0; end++) {
      if (code[end] === "(") depth++;
      else if (code[end] === ")") depth--;
    }
    return code.slice(start, end - 1);
  });
}

/**
 * Whether a test file chooses its databases itself rather than taking the pass's: it never reads the
 * pass's choice, and every sandbox it makes names its database (or the file opens PostgreSQL
 * databases of its own, freshPostgresUrl).
 */
export function picksItsDatabases(text: string): boolean {
  const code = withoutComments(text);
  if (/\b(?:SANDBOX_DATABASE|TEST_DIALECT|SPYGLASS_TEST_DATABASE)\b/.test(code)) return false;
  const calls = sandboxArguments(code);
  if (calls.length === 0) return /\bfreshPostgresUrl\(/.test(code);
  return calls.every((args) => /\bdatabase\s*[:,}]|SPYGLASS_DATABASE_URL/.test(args));
}

/** Test files (relative to the repository) whose PostgreSQL side no pass of build.sh would run. */
export function unrunPostgresSides(tests: ReadonlyArray<{ path: string; text: string }>, pass: readonly string[]): string[] {
  const inPass = (path: string) => pass.some((entry) => path === entry || path.startsWith(`${entry}/`));
  return tests
    .filter(({ path, text }) => hasPostgresSide(text) && !inPass(path) && !picksItsDatabases(text))
    .map(
      ({ path }) =>
        `${path} branches on the database it was given, but is not in build.sh's POSTGRES_TESTS and does not pick its databases itself`,
    );
}

function listTests(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = join(dir, entry.name);
    if (entry.isDirectory()) return listTests(full);
    return entry.name.endsWith(".test.ts") ? [full] : [];
  });
}

describe("the house", () => {
  test("the import graph was found (the parser reads this code base)", () => {
    expect(sources.length).toBeGreaterThan(50);
    const keys = sources.find((f) => f.path === "keys/service.ts")!;
    expect(keys.imports.some((i) => i.target === "db/client.ts")).toBe(true);
  });

  test("a feature folder queries only its own tables (analytics reads tracking's answer tables)", () => {
    expect(sources.flatMap(tableViolations)).toEqual([]);
  });

  test("only main.ts and server.ts import app.ts", () => {
    const importers = sources.filter((f) => f.imports.some((i) => i.target === "app.ts")).map((f) => f.path);
    expect(importers.filter((p) => p !== "main.ts" && p !== "server.ts")).toEqual([]);
  });

  test("no two feature folders import each other, around a cycle of any length (type-only imports count)", () => {
    expect(folderCycles(folderGraph(sources)).map((c) => c.join(" → "))).toEqual([]);
  });

  test("the checks catch what they are for", () => {
    const bad: SourceFile = {
      path: "keys/service.ts",
      folder: "keys",
      text: 'const x = "SELECT k.id FROM api_keys k JOIN brands b ON 1 WHERE k.id IN (SELECT 1 FROM prompt_tags)";',
      imports: [{ target: "db/schema.ts", names: ["apiKeys", "accounts"] }],
    };
    expect(tableViolations(bad)).toEqual([
      "keys/service.ts imports the accounts table (owned by accounts/)",
      "keys/service.ts names the brands table in SQL (owned by brands/)",
      "keys/service.ts names the prompt_tags table in SQL (owned by prompts/)",
    ]);
    const graph = new Map([
      ["a", new Set(["b"])],
      ["b", new Set(["c"])],
      ["c", new Set(["a"])],
      ["d", new Set(["a"])],
    ]);
    expect(folderCycles(graph)).toEqual([["a", "b", "c", "a"]]);
  });
});

describe("the suite's PostgreSQL pass", () => {
  const pass = postgresPass(readFileSync(join(REPO, "build.sh"), "utf8"));

  test("build.sh's list was found, and every entry in it exists", () => {
    expect(pass.length).toBeGreaterThan(20);
    const tests = listTests(join(REPO, "test")).map((full) => relative(REPO, full));
    expect(pass.filter((entry) => !tests.some((path) => path === entry || path.startsWith(`${entry}/`)))).toEqual([]);
  });

  test("every test file with a side for PostgreSQL alone is in the pass or picks its databases itself", () => {
    const tests = listTests(join(REPO, "test"))
      .map((full) => ({ path: relative(REPO, full), text: readFileSync(full, "utf8") }))
      // This file's examples below are strings, not branches.
      .filter(({ path }) => path !== "test/architecture.test.ts");
    expect(unrunPostgresSides(tests, pass)).toEqual([]);
  });

  test("the check catches what it is for", () => {
    const file = (path: string, text: string) => ({ path, text });
    const flagged = unrunPostgresSides(
      [
        file("test/e2e/a.test.ts", 'test.if(SANDBOX_DATABASE === "postgres")("x", async () => {});'),
        file("test/e2e/b.test.ts", 'if (box.database === "sqlite") return 1;\nreturn 2;'),
        file("test/e2e/c.test.ts", 'const kind = db.dialect !== "postgres" ? 1 : 2;'),
        file(
          "test/e2e/d.test.ts",
          'box = await sandbox({ database: "postgres" });\nbox2 = await sandbox();\nif (box.database === "postgres") {}',
        ),
        // Not flagged: listed (a folder, a file), SQLite alone, skipped on PostgreSQL, or picking its own.
        file("test/keys/e.test.ts", 'if (db.dialect === "postgres") {}'),
        file("test/e2e/listed.test.ts", 'if (db.dialect === "postgres") {}'),
        file("test/http/f.test.ts", 'test.if(TEST_DIALECT === "sqlite")("x", async () => {});'),
        file("test/http/g.test.ts", 'test.skipIf(process.env.SPYGLASS_TEST_DATABASE === "postgres")("x", async () => {});'),
        file(
          "test/e2e/h.test.ts",
          'for (const database of ["sqlite", "postgres"] as const) {\n  const box = await sandbox({ toml, database });\n  if (box.database === "postgres") {}\n}',
        ),
        file("test/e2e/i.test.ts", '// a comment: if (x === "postgres")\nconst y = 1;'),
      ],
      ["test/keys", "test/e2e/listed.test.ts"],
    );
    expect(flagged.map((line) => line.split(" ")[0])).toEqual([
      "test/e2e/a.test.ts",
      "test/e2e/b.test.ts",
      "test/e2e/c.test.ts",
      "test/e2e/d.test.ts",
    ]);
  });
});

/**
 * Browser test files that hand a pending promise to expect(…).resolves or .rejects. Bun's expect
 * waits for such a promise in a way that serves Playwright's pipe to Chromium slowly: measured, a
 * page.evaluate took 5 ms awaited and 650 ms through `.resolves` (a locator's inputValue: 6 ms and
 * 1 s), and under a loaded CI it let a reload's locator time out after 30 s (articles.test.ts, two
 * fresh-clone runs in ten). Awaited first, then expected, it is as fast as anywhere else.
 */
function expectsPendingBrowserPromises(tests: Array<{ path: string; text: string }>): string[] {
  return tests
    .filter(({ text }) => /from "playwright-core"|from "(\.\.\/)+support\/(dashboard|xss-harness)"/.test(text))
    .flatMap(({ path, text }) =>
      // Over the whole text: the matcher may be on the line after the promise's closing parenthesis.
      [...text.matchAll(/\)\s*\.(resolves|rejects)\./g)].map((match) => {
        const line = text.slice(0, match.index).split("\n").length + (match[0].match(/\n/g)?.length ?? 0);
        return `${path}:${line}: ${text.split("\n")[line - 1]?.trim()}`;
      }),
    );
}

describe("the suite's browser tests", () => {
  test("await Playwright's promises before expecting (no expect(…).resolves or .rejects)", () => {
    const tests = listTests(join(REPO, "test"))
      .map((full) => ({ path: relative(REPO, full), text: readFileSync(full, "utf8") }))
      // This file's examples below are strings.
      .filter(({ path }) => path !== "test/architecture.test.ts");
    expect(expectsPendingBrowserPromises(tests)).toEqual([]);
  });

  test("the check catches what it is for", () => {
    const flagged = expectsPendingBrowserPromises([
      {
        path: "test/dashboard/a.test.ts",
        text: 'import { openDashboard } from "../support/dashboard";\nawait expect(page.evaluate(() => 1)).resolves.toBe(1);',
      },
      {
        path: "test/dashboard/b.test.ts",
        text: 'import { chromium } from "playwright-core";\n  await expect(\n    tab.title(),\n  ).rejects.toThrow();',
      },
      {
        path: "test/e2e/e.test.ts",
        text: 'import { launchChromium } from "../support/xss-harness";\nawait expect(page.title())\n  .resolves.toBe("x");',
      },
      {
        path: "test/content/f/g.test.ts",
        text: 'import { openDashboard } from "../../support/dashboard";\nawait expect(p.evaluate(() => 1)).rejects.toThrow();',
      },
      // Not flagged: awaited first, or no browser in the file.
      {
        path: "test/dashboard/c.test.ts",
        text: 'import { openDashboard } from "../support/dashboard";\nexpect(await page.evaluate(() => 1)).toBe(1);',
      },
      { path: "test/brands/d.test.ts", text: "await expect(deleteBrand(ctx, a, b)).resolves.toEqual({});" },
    ]);
    expect(flagged.map((line) => line.split(":").slice(0, 2).join(":"))).toEqual([
      "test/dashboard/a.test.ts:2",
      "test/dashboard/b.test.ts:4",
      "test/e2e/e.test.ts:3",
      "test/content/f/g.test.ts:2",
    ]);
  });
});

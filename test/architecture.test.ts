// The house rules of STYLE.md, checked on the real import graph of src/: a feature folder owns its
// tables (others call its service functions), nothing but main.ts and server.ts imports app.ts, and
// no two feature folders depend on each other, directly or around a longer cycle.
import { describe, expect, test } from "bun:test";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

const SRC = resolve(import.meta.dir, "../src");

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

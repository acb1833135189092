// jsdom inside `bun build --compile`: the sanitizer must work from the binary alone, in a directory
// with no node_modules and no source tree next to it.

import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { inlineDefaultStylesheet, rewriteCreateRequireJson, stubSyncXhrWorker } from "../../build/jsdom-plugin";

const repoRoot = resolve(import.meta.dir, "../..");
// The entry has to live inside the repository so that its imports resolve against node_modules;
// .test-tmp/ is git-ignored.
mkdirSync(join(repoRoot, ".test-tmp"), { recursive: true });
const entryDir = mkdtempSync(join(repoRoot, ".test-tmp", "compiled-sanitizer-"));
const binaryDir = mkdtempSync(join(tmpdir(), "spyglass-compiled-sanitizer-"));

afterAll(() => {
  rmSync(entryDir, { recursive: true, force: true });
  rmSync(binaryDir, { recursive: true, force: true });
});

interface CompiledReport {
  sanitized: string[];
  rendered: string;
  selfTest: { ok: boolean; reason?: string };
  computedColor: string;
}

describe("the sanitizer compiled into a single executable", () => {
  test("runs from the binary alone and gives safe output", async () => {
    const src = (file: string): string => JSON.stringify(join(repoRoot, "src/content", file));
    writeFileSync(
      join(entryDir, "entry.ts"),
      `import { sanitizeArticleHtml } from ${src("sanitize")};
import { renderArticle } from ${src("render")};
import { selfTestSanitizer } from ${src("sanitizer-self-test")};
import { JSDOM } from "jsdom";
// getComputedStyle reads jsdom's default stylesheet, the file the plugin inlines.
const { window } = new JSDOM("<style>p { color: red }</style><p>x</p>");
const report = {
  sanitized: [
    sanitizeArticleHtml("<img src=x onerror=alert(1)><p>kept</p>"),
    sanitizeArticleHtml('<a href="&#106;avascript:alert(1)">x</a><svg onload=alert(1)></svg>'),
  ],
  rendered: renderArticle({ title: "T", markdown: "# T\\n\\n[a](https://e.com) <iframe src=javascript:alert(1)></iframe>" }),
  selfTest: selfTestSanitizer(sanitizeArticleHtml),
  computedColor: window.getComputedStyle(window.document.querySelector("p")).color,
};
console.log(JSON.stringify(report));
`,
    );
    const outfile = join(binaryDir, "sanitizer-check");
    // Compiled with the real build's configuration, in a process of its own as build.sh does:
    // inside `bun test`, Bun 1.3.14's bundler could not resolve src/content/unsafe-html.ts's
    // "../errors" on its first build (the same build passes in a plain `bun` process).
    writeFileSync(
      join(entryDir, "build.ts"),
      `import { compileExecutable } from ${JSON.stringify(join(repoRoot, "build/compile"))};
const build = await compileExecutable([${JSON.stringify(join(entryDir, "entry.ts"))}], ${JSON.stringify(outfile)});
console.log(JSON.stringify({ success: build.success, logs: build.logs.map(String) }));
`,
    );
    const compile = Bun.spawnSync([process.execPath, join(entryDir, "build.ts")], { cwd: repoRoot });
    expect(compile.stderr.toString()).toBe("");
    const build = JSON.parse(compile.stdout.toString()) as { success: boolean; logs: string[] };
    expect(build.logs).toEqual([]);
    expect(build.success).toBe(true);
    expect(readdirSync(binaryDir)).toEqual(["sanitizer-check"]);

    const run = Bun.spawnSync([outfile], { cwd: binaryDir, env: { PATH: "/usr/bin:/bin" } });
    expect(run.stderr.toString()).toBe("");
    expect(run.exitCode).toBe(0);
    const report = JSON.parse(run.stdout.toString()) as CompiledReport;
    expect(report.sanitized).toEqual(['<img src="x"><p>kept</p>', "<a>x</a>"]);
    expect(report.rendered).toBe('<p><a href="https://e.com" rel="noopener noreferrer">a</a> </p>\n');
    expect(report.selfTest).toEqual({ ok: true });
    expect(report.computedColor).toBe("rgb(255, 0, 0)");
  }, 180_000);
});

describe("jsdom-plugin", () => {
  test("turns css-tree's createRequire JSON loads into static imports", () => {
    const source =
      "import { createRequire } from 'module';\nconst require = createRequire(import.meta.url);\n" +
      "export const { version } = require('../package.json');\nconst p = require(\"../data/patch.json\");\n";
    const rewritten = rewriteCreateRequireJson(source, "version.js");
    expect(rewritten).toContain('import __spyglass_json_0 from "../package.json" with { type: "json" };');
    expect(rewritten).toContain("const p = __spyglass_json_1;");
    expect(rewritten).not.toContain("createRequire");
  });

  test("fails the build when jsdom no longer looks the way the rewrites expect", () => {
    expect(() => inlineDefaultStylesheet("const css = loadSomehow();", "computed-style.js")).toThrow(/default stylesheet/);
    expect(() => stubSyncXhrWorker("const w = null;", "XMLHttpRequest-impl.js")).toThrow(/xhr-sync-worker/);
    expect(() =>
      rewriteCreateRequireJson(
        "import { createRequire } from 'module';\nconst require = createRequire(import.meta.url);\nrequire('./x.js');\n",
        "data.js",
      ),
    ).toThrow(/still calls require/);
  });
});

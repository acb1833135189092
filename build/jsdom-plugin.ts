// A Bun.build plugin that makes jsdom work inside the single executable (`bun build --compile`).
//
// The bundler only embeds what it can see as a static import. jsdom and css-tree reach three
// things at run time that it cannot see, and each one is a load-time crash in the binary
// ("Cannot find module …" / ENOENT under /$bunfs), not a quiet degradation:
//   1. css-tree's ESM build loads its JSON data with `createRequire(import.meta.url)` +
//      `require("../data/patch.json")` / `require("mdn-data/css/….json")` / `require("../package.json")`.
//      Rewritten into static JSON imports, which the bundler inlines.
//   2. jsdom's computed-style helper reads `browser/default-stylesheet.css` with `fs.readFileSync`
//      next to `__dirname` when the module loads. Rewritten into the file's text as a string literal.
//   3. jsdom's XMLHttpRequest resolves `xhr-sync-worker.js` with `require.resolve` when the module
//      loads. Spyglass never runs scripts in jsdom, so synchronous XHR is unreachable; the path is
//      replaced by one that does not exist, so that if it ever were reached it fails loudly.
//
// Every rewrite insists on finding the code it expects: after a jsdom or css-tree upgrade that
// moves things around, the build fails here instead of shipping a binary that crashes on start.

import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { type BunPlugin, type PluginBuilder } from "bun";

const CREATE_REQUIRE_IMPORT = /^import\s*\{\s*createRequire\s*\}\s*from\s*['"](?:node:)?module['"];?[ \t]*\r?\n?/m;
const CREATE_REQUIRE_CALL = /^const\s+require\s*=\s*createRequire\(\s*import\.meta\.url\s*\);?[ \t]*\r?\n?/m;
const REQUIRE_JSON = /\brequire\(\s*(['"])([^'"]+\.json)\1\s*\)/g;

/** css-tree ESM: `createRequire` + `require("x.json")` → `import __json_N from "x.json"`. */
export function rewriteCreateRequireJson(source: string, file: string): string {
  if (!CREATE_REQUIRE_CALL.test(source)) return source;
  const imports: string[] = [];
  let body = source
    .replace(CREATE_REQUIRE_IMPORT, "")
    .replace(CREATE_REQUIRE_CALL, "")
    .replace(REQUIRE_JSON, (_match, _quote: string, specifier: string) => {
      const name = `__spyglass_json_${imports.length}`;
      imports.push(`import ${name} from ${JSON.stringify(specifier)} with { type: "json" };`);
      return name;
    });
  // Any require() left over would be a call to an identifier that no longer exists.
  if (/\brequire\s*\(/.test(body)) {
    throw new Error(`jsdom-plugin: ${file} still calls require() after rewriting its JSON loads`);
  }
  body = `${imports.join("\n")}\n${body}`;
  return body;
}

const DEFAULT_STYLESHEET_READ =
  /fs\.readFileSync\(\s*path\.resolve\(\s*__dirname\s*,\s*(['"])([^'"]+\.css)\1\s*\)\s*,\s*\{\s*encoding:\s*['"]utf-8['"]\s*\}\s*\)/;

/** jsdom computed-style: inline the default stylesheet that is read from disk at module load. */
export function inlineDefaultStylesheet(source: string, file: string): string {
  const match = DEFAULT_STYLESHEET_READ.exec(source);
  if (!match || match[2] === undefined) {
    throw new Error(`jsdom-plugin: ${file} no longer reads its default stylesheet the expected way`);
  }
  const css = readFileSync(resolve(dirname(file), match[2]), "utf8");
  return source.replace(DEFAULT_STYLESHEET_READ, () => JSON.stringify(css));
}

const SYNC_WORKER_RESOLVE = /require\.resolve\(\s*(['"])\.\/xhr-sync-worker\.js\1\s*\)/;

/** jsdom XMLHttpRequest: drop the load-time `require.resolve` of the sync-XHR worker. */
export function stubSyncXhrWorker(source: string, file: string): string {
  if (!SYNC_WORKER_RESOLVE.test(source)) {
    throw new Error(`jsdom-plugin: ${file} no longer resolves xhr-sync-worker.js the expected way`);
  }
  return source.replace(SYNC_WORKER_RESOLVE, JSON.stringify("/$bunfs/spyglass-has-no-jsdom-sync-xhr-worker.js"));
}

// Forward or back slashes, so that the filters also hold on Windows builds.
const CSS_TREE_ESM = /[\\/]node_modules[\\/]css-tree[\\/]lib[\\/].*\.js$/;
const JSDOM_COMPUTED_STYLE = /[\\/]node_modules[\\/]jsdom[\\/]lib[\\/]jsdom[\\/]living[\\/]css[\\/]helpers[\\/]computed-style\.js$/;
const JSDOM_XHR = /[\\/]node_modules[\\/]jsdom[\\/]lib[\\/]jsdom[\\/]living[\\/]xhr[\\/]XMLHttpRequest-impl\.js$/;

export const jsdomPlugin: BunPlugin = {
  name: "spyglass-jsdom",
  setup(build: PluginBuilder) {
    build.onLoad({ filter: CSS_TREE_ESM }, async ({ path }) => ({
      contents: rewriteCreateRequireJson(await Bun.file(path).text(), path),
      loader: "js",
    }));
    build.onLoad({ filter: JSDOM_COMPUTED_STYLE }, async ({ path }) => ({
      contents: inlineDefaultStylesheet(await Bun.file(path).text(), path),
      loader: "js",
    }));
    build.onLoad({ filter: JSDOM_XHR }, async ({ path }) => ({
      contents: stubSyncXhrWorker(await Bun.file(path).text(), path),
      loader: "js",
    }));
  },
};

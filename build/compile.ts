// Compiles src/main.ts into the single executable dist/spyglass. The article renderer's worker is an
// entry point of its own (Bun bundles each entry separately; src/content/renderer.ts finds it).
import { jsdomPlugin } from "./jsdom-plugin";

const result = await Bun.build({
  entrypoints: ["src/main.ts", "src/content/render-worker.ts"],
  compile: { outfile: "dist/spyglass" },
  minify: true,
  sourcemap: "none",
  target: "bun",
  plugins: [jsdomPlugin],
});
if (!result.success) {
  for (const message of result.logs) console.error(message);
  process.exit(1);
}

// Compiles src/main.ts into the single executable dist/spyglass.
import { jsdomPlugin } from "./jsdom-plugin";

const result = await Bun.build({
  entrypoints: ["src/main.ts"],
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

// Runs the benchmark scenarios (`./build.sh bench`, or `bun run bench/index.ts [name...]`).
// A scenario is a bench/<name>.ts module exporting `run(): Promise<void>` that reports through
// bench/lib.ts; register it here.
import { printTargets } from "./lib";

const SCENARIOS: Record<string, () => Promise<{ run(): Promise<void> }>> = {
  dashboard: () => import("./dashboard"),
  door: () => import("./door"),
  foundation: () => import("./foundation"),
  mcp: () => import("./mcp"),
  "mcp-apps": () => import("./mcp-apps"),
  overview: () => import("./overview"),
  pg: () => import("./pg"),
  public: () => import("./public"),
  render: () => import("./render"),
  scale: () => import("./scale"),
  tracking: () => import("./tracking"),
  "tracking-instances": () => import("./tracking-instances"),
};

const wanted = process.argv.slice(2);
for (const name of wanted) {
  if (!SCENARIOS[name]) {
    console.error(`unknown scenario "${name}"; known: ${Object.keys(SCENARIOS).join(", ")}`);
    process.exit(2);
  }
}
for (const name of wanted.length ? wanted : Object.keys(SCENARIOS)) {
  const scenario = await SCENARIOS[name]!();
  await scenario.run();
}
// Every scenario's targets (issue 19's table), each against its baseline measured in this run.
console.log("\ntargets:");
printTargets();

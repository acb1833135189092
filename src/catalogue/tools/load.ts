// The server's way to TOOLS (index.ts): each group's module imported in a task of its own, the event
// loop yielded between them. A tool module defines its zod schemas when it is evaluated, and all of
// them in one task held the serving thread for 26–46 ms at every start (the binary on a busy 2-core
// host; 16–23 ms on a quiet one, bench/index.ts foundation); one group at a time, the longest is the
// analytics group's, 4–12 ms. Same tools, same order: test/mcp/tools-list.test.ts compares them.
import { type AnyTool } from "../registry";

// In index.ts's order. The groups' own imports of each other (brand.ts uses competitors.ts's schema)
// are evaluated with the first group that needs them.
const GROUPS: ReadonlyArray<() => Promise<readonly unknown[]>> = [
  async () => (await import("./brand")).brandTools,
  async () => (await import("./prompts")).promptTools,
  async () => (await import("./tags")).tagTools,
  async () => (await import("./competitors")).competitorTools,
  async () => (await import("./analytics")).analyticsTools,
  async () => (await import("./tracking")).trackingTools,
  async () => (await import("./content")).contentTools,
];

/** Every tool of index.ts's TOOLS, in its order, its groups' modules evaluated one task apiece. */
export async function loadToolsInTasks(): Promise<readonly AnyTool[]> {
  const tools: AnyTool[] = [];
  for (const group of GROUPS) {
    await new Promise((resolve) => setImmediate(resolve));
    // Each declaration's handler takes its own input type: widened for the registry, as in index.ts.
    tools.push(...((await group()) as readonly AnyTool[]));
  }
  return tools;
}

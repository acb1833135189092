// Every tool of the catalogue, in the order tools/list shows them.
//
// Adding a tool: declare it with defineTool in the file of its group (name, title, a description
// that says when to use it, zod input (a strict object) and output schemas, annotations from
// ./common, plan, handler), export it in that file's array, and, for a new group, add the array
// below and its import to load.ts (how the server loads them: test/mcp/tools-list compares the two). The handler only translates: rules live in the owning feature's service. The
// registry derives tools/list per plan, the plan gate and input validation from the declaration.
// Then update the tools/list snapshots (`bun run snapshots`) and give the tool its row in the
// isolation matrix (test/e2e/mcp.test.ts), which fails until it has one.
import { type AnyTool } from "../registry";
import { analyticsTools } from "./analytics";
import { brandTools } from "./brand";
import { competitorTools } from "./competitors";
import { contentTools } from "./content";
import { promptTools } from "./prompts";
import { tagTools } from "./tags";
import { trackingTools } from "./tracking";

const DECLARED = [
  ...brandTools,
  ...promptTools,
  ...tagTools,
  ...competitorTools,
  ...analyticsTools,
  ...trackingTools,
  ...contentTools,
] as const;

// Each declaration's handler takes its own input type, so the list is widened for the registry.
export const TOOLS = DECLARED as readonly AnyTool[];

/** Every declared tool with its literal name and schemas: what the dashboard's types come from. */
export type DeclaredTool = (typeof DECLARED)[number];

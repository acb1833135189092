// The catalogue's types for its doors' clients (the dashboard imports these with `import type`, so a
// changed tool is a type error in the page that uses it, and no server code reaches the browser).
import { type z } from "zod";
import { type DeclaredTool } from "./tools";

export type ToolName = DeclaredTool["name"];
type ToolNamed<N extends ToolName> = Extract<DeclaredTool, { name: N }>;

/** What a caller sends: optional fields may be left out, defaults are applied by the server. */
export type ToolInput<N extends ToolName> = z.input<ToolNamed<N>["input"]>;
/** What the tool returns, after the output schema has parsed it. */
export type ToolOutput<N extends ToolName> = z.output<ToolNamed<N>["output"]>;

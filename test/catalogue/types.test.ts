// The catalogue's types as a client sees them. The @ts-expect-error lines are checked by `tsc`
// (./build.sh test type-checks the tests): each must stay an error, or the type check fails.
import { expect, test } from "bun:test";
import { TOOLS } from "../../src/catalogue/tools";
import { type ToolInput, type ToolName, type ToolOutput } from "../../src/catalogue/types";

test("tool names, inputs and outputs are typed from the declarations", () => {
  const input: ToolInput<"create_prompts"> = { prompts: [{ text: "best crm for agencies", tags: ["crm"] }] };
  // @ts-expect-error a misspelt field is a type error, as it is an invalid-input error at run time
  const misspelt: ToolInput<"create_tag"> = { nam: "Pricing" };
  // @ts-expect-error a tool that does not exist has no name
  const unknown: ToolName = "drop_tables";
  const count: ToolOutput<"list_tags">["tags"][number]["prompt_count"] = 3;
  const names: ToolName[] = ["get_brand", "publish_to_site", "get_visibility_overview"];
  expect(names.every((name) => TOOLS.some((tool) => tool.name === name))).toBe(true);
  expect([input.prompts.length, count]).toEqual([1, 3]);
  expect(JSON.stringify([misspelt, unknown])).toBe('[{"nam":"Pricing"},"drop_tables"]');
});

// The server builds its tool catalogue after start in slices (buildCatalogInSlices), yielding the
// event loop between them: the catalogue is the one the eager build makes, for every plan, and
// other work runs while it is built (from before its first slice). A bad declaration is
// refused the same way.
import { expect, test } from "bun:test";
import { buildCatalog, buildCatalogInSlices } from "../../src/catalogue/registry";
import { TOOLS } from "../../src/catalogue/tools";
import { PLANS } from "../../src/db/values";

test("the catalogue built in slices lists what the eager build lists, for every plan, and yields between slices", async () => {
  const eager = buildCatalog(TOOLS);
  let ranMeanwhile = 0;
  const ticker = setInterval(() => ranMeanwhile++, 0);
  // A slice of 0 ms: the event loop is yielded before each tool.
  const sliced = await buildCatalogInSlices(TOOLS, 0);
  clearInterval(ticker);
  expect(ranMeanwhile).toBeGreaterThan(0);
  for (const plan of PLANS) expect(sliced.listFor(plan)).toEqual(eager.listFor(plan));
  expect([...sliced.byName.keys()]).toEqual([...eager.byName.keys()]);
});

test("a tool declared twice is refused by the sliced build as by the eager one", async () => {
  const tool = TOOLS[0]!;
  expect(() => buildCatalog([tool, tool])).toThrow(`tool "${tool.name}" is declared twice`);
  await expect(buildCatalogInSlices([tool, tool], 0)).rejects.toThrow(`tool "${tool.name}" is declared twice`);
});

test("the sliced build yields before its first slice: the task that imported the tools' modules does not render schemas too", async () => {
  let touched = false;
  const first = Object.defineProperty({ ...TOOLS[0]! }, "name", {
    get: () => {
      touched = true;
      return TOOLS[0]!.name;
    },
  });
  let untouchedBeforeFirstSlice = false;
  setImmediate(() => (untouchedBeforeFirstSlice = !touched));
  await buildCatalogInSlices([first, ...TOOLS.slice(1)]);
  expect(untouchedBeforeFirstSlice).toBe(true);
});

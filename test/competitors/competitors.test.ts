// Competitors are part of the roster the answer analysis matches: every change re-analyses the
// brand's stored answers, whichever door made it, and a change that changes nothing does not.
import { expect, test } from "bun:test";
import { createCompetitor, deleteCompetitor, listAllCompetitors, updateCompetitor } from "../../src/competitors/service";
import { memoryApp, seedBrand } from "../analytics/dataset";

test("creating, changing and deleting a competitor each re-analyse once; an unchanged update does not", async () => {
  const app = memoryApp();
  const { brandId } = seedBrand(app, { name: "Acme" });
  const reanalyses = () => app.tracking.reanalysis.rosterVersion(brandId);

  const globex = await createCompetitor(app, brandId, { name: "Globex", aliases: ["Globex Corp"], domains: ["globex.com"] });
  expect(reanalyses()).toBe(1);
  expect(
    await updateCompetitor(app, brandId, globex.id, { name: "Globex", aliases: ["Globex Corp"], domains: ["https://www.globex.com/"] }),
  ).toEqual(globex);
  expect(reanalyses()).toBe(1);
  await updateCompetitor(app, brandId, globex.id, { domains: ["globex.io"] });
  expect(reanalyses()).toBe(2);
  await deleteCompetitor(app, brandId, globex.id);
  expect(reanalyses()).toBe(3);
  expect(await listAllCompetitors(app.db, brandId)).toEqual([]);
});

// Deleting a brand (an agency's client leaving): its prompts, competitors, tags, answers and their
// figures, articles (published ones leave the public content API), API keys and connected apps,
// all of it. Refused while one of its tracking runs is under way (the run would go on writing); a
// re-analysis under way is waited for. The rows go in slices (db/brand-rows.ts), credentials first,
// so that the brand's keys stop working at once and the server keeps answering meanwhile.
import { type AppContext } from "../context";
import { deleteBrandRows } from "../db/brand-rows";
import { Conflict } from "../errors";
import { log } from "../log";
import { getAccountBrand } from "./service";

export interface DeletedBrand {
  id: string;
  name: string;
}

/** Deletes the account's brand (NotFound for another account's or an unknown one) and everything of it. */
export async function deleteBrand(app: AppContext, accountId: string, brandId: string): Promise<DeletedBrand> {
  const brand = await getAccountBrand(app.db, accountId, brandId);
  if (!(await app.tracking.runner.closeBrand(brandId))) {
    throw new Conflict(
      `A tracking run of ${brand.name} is under way: delete the brand once it has ended (the Tracking page shows its progress).`,
      "tracking_running",
    );
  }
  try {
    await app.tracking.reanalysis.settled(brandId);
    const started = performance.now();
    const deleted = await deleteBrandRows(app.db, brandId);
    // The public content API's cached copies of its articles.
    app.events.emit("articlesChanged", { brandId });
    log.info("brand deleted", {
      brand_id: brandId,
      account_id: accountId,
      rows: [...deleted.values()].reduce((a, b) => a + b, 0),
      ms: Math.round(performance.now() - started),
    });
    return { id: brand.id, name: brand.name };
  } finally {
    app.tracking.runner.reopenBrand(brandId);
  }
}

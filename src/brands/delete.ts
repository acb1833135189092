// Deleting a brand (an agency's client leaving): its prompts, competitors, tags, answers and their
// figures, articles (published ones leave the public content API), API keys and connected apps,
// all of it. Refused while one of its tracking runs is under way (the run would go on writing); a
// re-analysis under way is waited for. The rows go in slices (db/brand-rows.ts), credentials first,
// so that the brand's keys stop working at once and the server keeps answering meanwhile.
import { isOwner } from "../accounts/owner";
import { deleteAccount, isKeptDemoAccount } from "../accounts/service";
import { type AppContext } from "../context";
import { deleteBrandRows } from "../db/brand-rows";
import { isStorageFailure, STORAGE_RETRY_AFTER_S } from "../db/storage-health";
import { Conflict, Unavailable } from "../errors";
import { log } from "../log";
import { type BrandView, getAccountBrand, listBrands } from "./service";

export interface DeletedBrand {
  id: string;
  name: string;
}

// Deletions under way, by account and brand: a second request of the account for the same brand
// shares the first's end, from the first's look-up on (on PostgreSQL, a second request's look-up
// could wait for a pooled connection until the first had deleted the brand, and find it gone: 404).
// Another account's request has a look-up of its own, which finds no brand of its.
const deleting = new Map<string, Promise<DeletedBrand>>();

/** Deletes the account's brand (NotFound for another account's or an unknown one) and everything of it. */
export async function deleteBrand(app: AppContext, accountId: string, brandId: string): Promise<DeletedBrand> {
  const key = `${accountId} ${brandId}`;
  const underWay = deleting.get(key);
  if (underWay) return await underWay;
  // The account's own brand, before anything else (another account's is NotFound, under way or not).
  const done = getAccountBrand(app.db, accountId, brandId).then((brand) => deleteNow(app, accountId, brand));
  deleting.set(key, done);
  const forget = () => deleting.delete(key);
  done.then(forget, forget);
  return await done;
}

async function deleteNow(app: AppContext, accountId: string, brand: BrandView): Promise<DeletedBrand> {
  const brandId = brand.id;
  if (!(await app.tracking.runner.closeBrand(brandId))) {
    throw new Conflict(
      `A tracking run of ${brand.name} is under way: delete the brand once it has ended (the Tracking page shows its progress).`,
      "tracking_running",
    );
  }
  try {
    await app.tracking.reanalysis.settled(brandId);
    const started = performance.now();
    let deleted: Map<string, number>;
    try {
      deleted = await deleteBrandRows(app.db, brandId);
    } catch (error) {
      // Some of it is gone already (its keys first): not "nothing was changed".
      if (isStorageFailure(error)) {
        app.db.storage.refused(error, { brand_id: brandId });
        throw new Unavailable(
          `${brand.name} was only partly deleted: the database's storage refused a write (a full disk?). Its API keys are gone; delete it again once there is room, to finish.`,
          "storage_full",
          STORAGE_RETRY_AFTER_S,
        );
      }
      throw error;
    } finally {
      // The public content API's cached copies of its articles, deleted or not.
      app.events.emit("articlesChanged", { brandId });
    }
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

/**
 * Deletes an account (its person asked, or the operator did): each of its brands as deleteBrand does
 * (in slices, credentials first), then the account with its sessions and connected apps. Refused
 * before anything goes while a run of one of its brands is under way (every brand is closed to new
 * runs first; this process's closing: a run another process starts meanwhile stops it part-way, and
 * it says so). The instance's owner is refused: the next account would become owner and see every
 * account's email. So is the demo's account while no owner exists: it keeps a fresh instance's first
 * signup closed, and with no account left the next visitor to sign up would own the instance.
 */
export async function deleteAccountAndBrands(app: AppContext, accountId: string): Promise<{ brands: number }> {
  if (await isOwner(app.db, accountId)) {
    throw new Conflict(
      "This account owns this Spyglass instance, so it cannot be deleted: the owner keeps the instance's accounts. Delete its brands instead, or remove the whole instance (its data directory).",
      "owner_account",
    );
  }
  // The demo's account alone keeps a fresh instance's first signup closed; beside an owner it may go.
  if (await isKeptDemoAccount(app.db, accountId)) {
    throw new Conflict(
      "The demo's account keeps this instance's first signup closed until its owner's account exists (spyglass account create): it cannot be deleted before. `spyglass demo --reset` seeds it again.",
      "demo_account",
    );
  }
  const runner = app.tracking.runner;
  const closed: string[] = [];
  let deleted = 0;
  try {
    // A brand made meanwhile (another tab) is found by the next pass, not left to the account's cascade.
    for (let brands = await listBrands(app.db, accountId); brands.length > 0; brands = await listBrands(app.db, accountId)) {
      for (const brand of brands) {
        if (closed.includes(brand.id)) continue;
        if (!(await runner.closeBrand(brand.id))) {
          throw new Conflict(
            `A tracking run of ${brand.name} is under way: delete the account once it has ended (the brand's Tracking page shows its progress).${deleted > 0 ? ` ${deleted} of its brands ${deleted === 1 ? "is" : "are"} already deleted.` : " Nothing was deleted."}`,
            "tracking_running",
          );
        }
        closed.push(brand.id);
      }
      for (const brand of brands) {
        try {
          await deleteBrand(app, accountId, brand.id);
        } catch (error) {
          // Another process's run (the CLI beside a server, another instance) started meanwhile:
          // this process's closing of the brands does not reach it.
          if (error instanceof Conflict && error.code === "tracking_running") {
            throw new Conflict(
              `A tracking run of ${brand.name} started while the account was being deleted: delete the account again once it has ended.${deleted > 0 ? ` ${deleted} of its brands ${deleted === 1 ? "is" : "are"} already deleted.` : " Nothing was deleted."}`,
              "tracking_running",
            );
          }
          throw error;
        }
        deleted++;
      }
    }
    await deleteAccount(app.db, accountId);
  } finally {
    for (const brandId of closed) runner.reopenBrand(brandId);
  }
  log.info("account deleted", { account_id: accountId, brands: deleted });
  return { brands: deleted };
}

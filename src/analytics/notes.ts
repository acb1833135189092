// What the analytics tools say beside their figures while those figures are not settled.
import { type Queries } from "../db/queries";
import { reanalysisPending } from "../tracking/roster";

/** Said while a roster change is being applied to the stored answers (figures moved from one call to the next without a word). */
export const REANALYSIS_NOTE =
  "The stored answers are being analysed again (after a change of the brand's names or its competitors, or an upgrade of Spyglass): until that ends (seconds for most brands), these figures mix answers read the new way and the old. Look again shortly for the settled figures.";

/** REANALYSIS_NOTE while the brand's stored answers are being analysed again (by any instance); null otherwise. */
export async function reanalysisNote(db: Queries, brandId: string): Promise<string | null> {
  return (await reanalysisPending(db, brandId)) ? REANALYSIS_NOTE : null;
}

/** The output field every analytics tool whose figures count mentions carries (its description). */
export const REANALYSIS_NOTE_DESCRIPTION =
  "while the stored answers are analysed again after a roster change (a competitor or an alias added, edited or deleted): that the figures are not settled yet; null otherwise";

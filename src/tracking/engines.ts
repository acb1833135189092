// The engines of a brand: the configured ones, plus those present in its stored answers but not
// configured (the demo's, or an engine removed from spyglass.toml). Read from the daily rollups
// (a few rows per day) and one newest-answer probe per unconfigured engine, so the cost does not
// follow the number of answers.
import { ENGINE_NAMES } from "../config";
import { type AppContext } from "../context";
import { Invalid } from "../errors";

export interface BrandEngine {
  id: string;
  label: string;
  model: string;
  /** In spyglass.toml: tracking runs can ask it. */
  configured: boolean;
  /** Not configured, and its stored answers come from no tracking run: the demo seeder wrote them. */
  demo: boolean;
}

/** Configured engines first (config order), then the stored-only ones by id. */
export async function brandEngines(app: AppContext, brandId: string): Promise<BrandEngine[]> {
  const configured = app.config.engines.map((e) => ({ id: e.id, label: e.label, model: e.model, configured: true, demo: false }));
  const known = new Set(configured.map((e) => e.id));
  const db = app.db;
  const stored = (await db.all<{ engine: string }>("SELECT DISTINCT engine FROM answer_days WHERE brand_id = ? ORDER BY engine", [brandId]))
    .map((r) => r.engine)
    .filter((id) => !known.has(id));
  const extra: BrandEngine[] = [];
  for (const id of stored) {
    const newest = await db.get<{ model: string | null; run_id: string | null }>(
      "SELECT model, run_id FROM answers WHERE brand_id = ? AND engine = ? ORDER BY created_at DESC LIMIT 1",
      [brandId, id],
    );
    const demo = newest !== undefined && newest.run_id === null;
    const name = ENGINE_NAMES[id] ?? id;
    extra.push({ id, label: demo ? `${name} (demo)` : `${name} (not configured)`, model: newest?.model ?? "", configured: false, demo });
  }
  return [...configured, ...extra];
}

/** The ids `brandEngines` lists. */
export async function brandEngineIds(app: AppContext, brandId: string): Promise<string[]> {
  const ids = new Set(app.config.engines.map((e) => e.id));
  for (const r of await app.db.all<{ engine: string }>("SELECT DISTINCT engine FROM answer_days WHERE brand_id = ?", [brandId]))
    ids.add(r.engine);
  return [...ids].sort();
}

/**
 * Checks an engine id given to a tool (exact, case-sensitive): an id that is neither configured nor
 * present in the brand's answers would silently give zeros, so it is refused with the ids that exist.
 */
export async function checkEngine(app: AppContext, brandId: string, engine: string, field = "engine"): Promise<string> {
  const ids = await brandEngineIds(app, brandId);
  if (ids.includes(engine)) return engine;
  const hint = ids.length === 0 ? "it has no engine yet (configure [[engines]] in spyglass.toml)." : `use one of ${ids.join(", ")}.`;
  throw new Invalid(`${field}: ${JSON.stringify(engine)} is not an engine of this brand; ${hint}`, "unknown_engine");
}

// The engines of a brand: the configured ones, plus those present in its stored answers but not
// configured (the demo's, or an engine removed from spyglass.toml). Read from the daily rollups
// (a few rows per day) and one newest-answer probe per unconfigured engine, so the cost does not
// follow the number of answers.
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

const KNOWN_LABELS: Record<string, string> = { chatgpt: "ChatGPT", claude: "Claude", perplexity: "Perplexity", gemini: "Gemini" };

/** Configured engines first (config order), then the stored-only ones by id. */
export function brandEngines(app: AppContext, brandId: string): BrandEngine[] {
  const configured = app.config.engines.map((e) => ({ id: e.id, label: e.label, model: e.model, configured: true, demo: false }));
  const known = new Set(configured.map((e) => e.id));
  const db = app.db.sqlite;
  const stored = db
    .query<{ engine: string }, [string]>("SELECT DISTINCT engine FROM answer_days WHERE brand_id = ? ORDER BY engine")
    .all(brandId)
    .map((r) => r.engine)
    .filter((id) => !known.has(id));
  const extra = stored.map((id) => {
    const newest = db
      .query<{ model: string | null; run_id: string | null }, [string, string]>(
        "SELECT model, run_id FROM answers WHERE brand_id = ? AND engine = ? ORDER BY created_at DESC LIMIT 1",
      )
      .get(brandId, id);
    const demo = newest !== null && newest.run_id === null;
    const name = KNOWN_LABELS[id] ?? id;
    return { id, label: demo ? `${name} (demo)` : `${name} (not configured)`, model: newest?.model ?? "", configured: false, demo };
  });
  return [...configured, ...extra];
}

/** The ids `brandEngines` lists. */
export function brandEngineIds(app: AppContext, brandId: string): string[] {
  const ids = new Set(app.config.engines.map((e) => e.id));
  for (const r of app.db.sqlite
    .query<{ engine: string }, [string]>("SELECT DISTINCT engine FROM answer_days WHERE brand_id = ?")
    .all(brandId))
    ids.add(r.engine);
  return [...ids].sort();
}

/**
 * Checks an engine id given to a tool (exact, case-sensitive): an id that is neither configured nor
 * present in the brand's answers would silently give zeros, so it is refused with the ids that exist.
 */
export function checkEngine(app: AppContext, brandId: string, engine: string, field = "engine"): string {
  const ids = brandEngineIds(app, brandId);
  if (ids.includes(engine)) return engine;
  const hint = ids.length === 0 ? "it has no engine yet (configure [[engines]] in spyglass.toml)." : `use one of ${ids.join(", ")}.`;
  throw new Invalid(`${field}: ${JSON.stringify(engine)} is not an engine of this brand; ${hint}`, "unknown_engine");
}

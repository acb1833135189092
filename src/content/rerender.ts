// Articles whose HTML an older renderer made (articles.rendered_by < RENDERER_VERSION) are rendered
// again when the server starts, once its sanitizer has passed its self-test: a fix to the renderer
// or the sanitizer then reaches every stored article, published ones included, not only those
// edited since the upgrade. One article at a time, through the same worker and queue as a save (a
// save waits at most one render); the HTML is written only if the article's title and markdown are
// still those rendered (an edit meanwhile rendered it with this renderer already). An article the
// renderer now refuses (a bound added since) keeps its HTML, and the log names it: it is the
// writer's to simplify, and the next start tries again.
import { brandAccountId } from "../brands/service";
import { type AppContext } from "../context";
import { log } from "../log";
import { renderArticleHtml } from "./renderer";
import { RENDERER_VERSION } from "./renderer-version";

const PAGE = 20;

interface StaleArticle {
  id: string;
  brandId: string;
  title: string;
  markdown: string;
  html: string;
  status: string;
}

export interface Rerendered {
  /** Articles rendered again whose HTML changed. */
  changed: number;
  /** Articles rendered again to the same HTML. */
  same: number;
  /** Articles the renderer refused or failed on; they keep their HTML. */
  failed: number;
}

/** `stop`: checked before each article (the server is stopping: the next start goes on from there). */
export async function rerenderStaleArticles(
  app: Pick<AppContext, "db" | "events">,
  stop: () => boolean = () => false,
): Promise<Rerendered> {
  const started = performance.now();
  const outcome: Rerendered = { changed: 0, same: 0, failed: 0 };
  for (let after = ""; !stop(); ) {
    const rows = await app.db.all<StaleArticle>(
      `SELECT id, brand_id AS "brandId", title, markdown, html, status FROM articles
         WHERE rendered_by < ? AND id > ? ORDER BY id LIMIT ${PAGE}`,
      [RENDERER_VERSION, after],
    );
    for (const row of rows) {
      if (stop()) break;
      try {
        const html = await renderArticleHtml({ title: row.title, markdown: row.markdown }, await brandAccountId(app.db, row.brandId));
        const written = await app.db.run(
          "UPDATE articles SET html = ?, rendered_by = ? WHERE id = ? AND rendered_by < ? AND title = ? AND markdown = ?",
          [html, RENDERER_VERSION, row.id, RENDERER_VERSION, row.title, row.markdown],
        );
        if (written === 0) continue;
        if (html === row.html) outcome.same++;
        else {
          outcome.changed++;
          if (row.status === "published") app.events.emit("articlesChanged", { brandId: row.brandId });
        }
      } catch (error) {
        // A stop under way closed the database or the worker: the next start goes on from here.
        if (stop()) break;
        outcome.failed++;
        log.warn("an article could not be rendered again by this build's renderer: it keeps the HTML it had; edit it to save it again", {
          article: row.id,
          brand: row.brandId,
          message: (error as Error).message,
        });
      }
    }
    if (rows.length < PAGE) break;
    after = rows[rows.length - 1]!.id;
  }
  const total = outcome.changed + outcome.same + outcome.failed;
  if (total > 0) {
    log.info("articles rendered again by this build's renderer", {
      articles: total,
      changed: outcome.changed,
      failed: outcome.failed,
      renderer: RENDERER_VERSION,
      ms: Math.round(performance.now() - started),
    });
  }
  return outcome;
}

// What the engines say about one prompt, read from the stored answers: the brief the writer model
// drafts from (content/writer.ts).
import { type Db } from "../db/client";
import { loadRoster } from "../tracking/roster";

const BRIEF_COMPETITORS = 8;
const BRIEF_DOMAINS = 10;
const BRIEF_EXCERPTS = 2;
const EXCERPT_CHARS = 600;

/** What the engines say about one prompt, read from the stored answers. */
export interface PromptEvidence {
  answers: number;
  brandMentioned: number;
  competitors: Array<{ name: string; answers: number }>;
  domains: Array<{ domain: string; citations: number }>;
  excerpts: Array<{ engine: string; text: string }>;
}

/** Counts over the stored answers to one prompt: competitors named, domains cited, a few excerpts. */
export async function promptEvidence(
  db: Db,
  brandId: string,
  promptId: string,
  options: { days: number; now?: number },
): Promise<PromptEvidence> {
  const since = (options.now ?? Date.now()) - options.days * 86_400_000;
  const sqlite = db.sqlite;
  const totals = sqlite
    .query<{ answers: number; mentioned: number | null }, [string, string, number]>(
      `SELECT count(*) AS answers, sum(brand_mentioned) AS mentioned FROM answers
        WHERE brand_id = ? AND prompt_id = ? AND status = 'ok' AND created_at >= ?`,
    )
    .get(brandId, promptId, since);
  const names = new Map((await loadRoster(db, brandId)).members.filter((m) => !m.isBrand).map((m) => [m.id, m.name]));
  const competitors = sqlite
    .query<{ member_id: string; n: number }, [string, string, number]>(
      `SELECT member_id, count(DISTINCT answer_id) AS n FROM mentions
        WHERE brand_id = ? AND prompt_id = ? AND is_brand = 0 AND created_at >= ?
        GROUP BY member_id ORDER BY n DESC, member_id`,
    )
    .all(brandId, promptId, since)
    .filter((r) => names.has(r.member_id))
    .slice(0, BRIEF_COMPETITORS)
    .map((r) => ({ name: names.get(r.member_id)!, answers: r.n }));
  const domains = sqlite
    .query<{ domain: string; n: number }, [string, string, number, number]>(
      `SELECT domain, count(*) AS n FROM citations
        WHERE brand_id = ? AND prompt_id = ? AND created_at >= ?
        GROUP BY domain ORDER BY n DESC, domain LIMIT ?`,
    )
    .all(brandId, promptId, since, BRIEF_DOMAINS)
    .map((r) => ({ domain: r.domain, citations: r.n }));
  const excerpts = sqlite
    .query<{ engine: string; text: string }, [string, string, number, number]>(
      `SELECT engine, text FROM answers
        WHERE brand_id = ? AND prompt_id = ? AND status = 'ok' AND created_at >= ? AND brand_mentioned = 0
        ORDER BY created_at DESC LIMIT ?`,
    )
    .all(brandId, promptId, since, BRIEF_EXCERPTS)
    .map((r) => ({ engine: r.engine, text: oneLine(r.text, EXCERPT_CHARS) }));
  return { answers: totals?.answers ?? 0, brandMentioned: totals?.mentioned ?? 0, competitors, domains, excerpts };
}

function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

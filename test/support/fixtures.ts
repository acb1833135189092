// Seeds a Spyglass database for the tool-server tests: accounts on each plan, brands with prompts,
// tags, competitors and one stored answer (with its analysis and rollups), and API keys made as the dashboard makes them
// (createApiKey). Rows are written with SQL directly, so the tools read data they did not write; the
// data access makes the same seed on SQLite and PostgreSQL (SPYGLASS_TEST_DATABASE).
//
//   const seed = await seedToolServerDb(t.db);               // the test app's database
//   const seed = await seedToolServerData(join(box.dataDir, "spyglass.db"));   // a file, for the binary
//   seed.a.key          // plaintext key of brand A (Autopilot account)
//   seed.a.ids          // ids of A's records, for isolation checks

import { createBrand } from "../../src/brands/service";
import { RENDERER_VERSION } from "../../src/content/renderer-version";
import { openDatabase } from "../../src/db/client";
import { type Queries } from "../../src/db/queries";
import { type Plan } from "../../src/db/schema";
import { newId } from "../../src/ids";
import { createApiKey } from "../../src/keys/service";
import { promptTextKey } from "../../src/prompts/service";
import { analyzeAnswer } from "../../src/tracking/analysis/analyze";
import { AnswerWriter } from "../../src/tracking/answer-writer";
import { loadRoster } from "../../src/tracking/roster";

export interface SeededBrand {
  accountId: string;
  email: string;
  brandId: string;
  brandName: string;
  key: string;
  keyId: string;
}

export interface BrandRecords {
  promptId: string;
  archivedPromptId: string;
  tagId: string;
  tagName: string;
  competitorId: string;
  answerId: string;
  /** A published article. */
  articleId: string;
  articleSlug: string;
}

export interface ToolServerSeed {
  /** Autopilot account, brand "Acme Analytics" with records. */
  a: SeededBrand & { ids: BrandRecords };
  /** Autopilot account, brand "Borealis Tools" with records of its own. */
  b: SeededBrand & { ids: BrandRecords };
  /** Visibility account with an empty brand. */
  visibility: SeededBrand;
  /** Account on plan none (its key was created while it was on Visibility). */
  none: SeededBrand;
  /** A second key of A's account, for revocation tests. */
  spareKeyOfA: { key: string; keyId: string };
}

async function insertAccount(db: Queries, email: string, plan: Plan): Promise<string> {
  const id = newId("acc");
  // Tool-server tests never log in: the hash is a placeholder no password matches.
  await db.run("INSERT INTO accounts (id, email, password_hash, plan, created_at) VALUES (?, ?, '!', ?, ?)", [id, email, plan, Date.now()]);
  return id;
}

async function seedBrand(db: Queries, email: string, name: string, domain: string, plan: Plan): Promise<SeededBrand> {
  const accountId = await insertAccount(db, email, plan === "none" ? "visibility" : plan);
  const brand = await createBrand(db, accountId, { name, domain });
  const key = await createApiKey(db, accountId, { name: `${name} key`, brandId: brand.id });
  if (plan === "none") await db.run("UPDATE accounts SET plan = 'none' WHERE id = ?", [accountId]);
  return { accountId, email, brandId: brand.id, brandName: name, key: key.plaintext, keyId: key.key.id };
}

/** A brand's tag, prompts (one archived), competitor, answer and published article. */
export async function seedRecords(db: Queries, brandId: string, word: string): Promise<BrandRecords> {
  const now = Date.now() - 86_400_000;
  const tagId = newId("tag");
  const tagName = `${word} launch`;
  await db.run("INSERT INTO tags (id, brand_id, name, name_key, color, created_at) VALUES (?, ?, ?, ?, '#112233', ?)", [
    tagId,
    brandId,
    tagName,
    tagName.toLowerCase(),
    now,
  ]);
  const promptId = newId("prm");
  const text = `best ${word} software for small teams`;
  await db.run("INSERT INTO prompts (id, brand_id, text, text_key, country, language, created_at) VALUES (?, ?, ?, ?, 'US', 'en', ?)", [
    promptId,
    brandId,
    text,
    promptTextKey(text),
    now,
  ]);
  await db.run("INSERT INTO prompt_tags (prompt_id, tag_id) VALUES (?, ?)", [promptId, tagId]);
  const archivedPromptId = newId("prm");
  const archived = `is ${word} worth it`;
  // A brand's prompts have strictly increasing created_at (createPrompts): it is their list order.
  await db.run("INSERT INTO prompts (id, brand_id, text, text_key, created_at, archived_at) VALUES (?, ?, ?, ?, ?, ?)", [
    archivedPromptId,
    brandId,
    archived,
    promptTextKey(archived),
    now + 1,
    now + 1,
  ]);
  const competitorId = newId("cmp");
  await db.run("INSERT INTO competitors (id, brand_id, name, aliases, domains, created_at) VALUES (?, ?, ?, ?, ?, ?)", [
    competitorId,
    brandId,
    `${word} Rival`,
    JSON.stringify([`${word}R`]),
    JSON.stringify([`${word.toLowerCase()}-rival.com`]),
    now,
  ]);
  const answerId = await storeAnswer(db, brandId, promptId, `For small teams, ${word} Rival is a common pick.`, now);
  const articleId = newId("art");
  const articleSlug = `why-${word.toLowerCase()}-for-small-teams`;
  await db.run(
    // Its HTML as this build's renderer would make it (a server started on it does not render it again).
    `INSERT INTO articles (id, brand_id, prompt_id, title, slug, markdown, html, rendered_by, status, published_at, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ${RENDERER_VERSION}, 'published', ?, ?, ?)`,
    [
      articleId,
      brandId,
      promptId,
      `Why ${word} for small teams`,
      articleSlug,
      `Small teams pick ${word}.`,
      `<p>Small teams pick ${word}.</p>`,
      now,
      now,
      now,
    ],
  );
  return { promptId, archivedPromptId, tagId, tagName, competitorId, answerId: String(answerId), articleId, articleSlug };
}

/**
 * The brand's one answer, stored as a tracking run stores it (its mentions, citations and share of
 * the daily rollups): re-analysis after a roster change assumes the rollups hold every stored
 * answer, and counted a bare row's mentions against valid answers the rollups never had.
 */
async function storeAnswer(db: Queries, brandId: string, promptId: string, text: string, createdAt: number): Promise<number> {
  const roster = await loadRoster(db, brandId);
  const analysis = analyzeAnswer({ text, providerCitations: [], roster: roster.members });
  return await db.transaction(async (tx) => {
    const answer = {
      brandId,
      runId: null,
      promptId,
      engine: "fake",
      model: "fake-1",
      sample: 1,
      status: "ok" as const,
      text,
      providerCitations: [],
      error: null,
      latencyMs: null,
      tokensIn: null,
      tokensOut: null,
      createdAt,
    };
    return await new AnswerWriter().write(tx, answer, analysis, roster);
  });
}

/** Seeds an open, migrated database (a test app's `t.db`). */
export async function seedToolServerDb(db: Queries): Promise<ToolServerSeed> {
  const a = await seedBrand(db, "a@example.com", "Acme Analytics", "acme-analytics.com", "autopilot");
  const b = await seedBrand(db, "b@example.com", "Borealis Tools", "borealis.io", "autopilot");
  const visibility = await seedBrand(db, "v@example.com", "Vega Labs", "vega-labs.com", "visibility");
  const none = await seedBrand(db, "n@example.com", "Nadir Co", "nadir.co", "none");
  const spare = await createApiKey(db, a.accountId, { name: "spare", brandId: a.brandId });
  return {
    a: { ...a, ids: await seedRecords(db, a.brandId, "Acme") },
    b: { ...b, ids: await seedRecords(db, b.brandId, "Borealis") },
    visibility,
    none,
    spareKeyOfA: { key: spare.plaintext, keyId: spare.key.id },
  };
}

/** Creates (and migrates) the SQLite database at `dbPath` and seeds it, for a binary to open; the handle is closed on return. */
export async function seedToolServerData(dbPath: string): Promise<ToolServerSeed> {
  const db = openDatabase(dbPath);
  try {
    return await seedToolServerDb(db);
  } finally {
    db.close();
  }
}

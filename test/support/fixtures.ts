// Seeds a Spyglass data directory for the tool-server tests: accounts on each plan, brands with
// prompts, tags, competitors and one stored answer, and API keys made as the dashboard makes them
// (createApiKey). Rows are written with drizzle directly, so the tools read data they did not write.
//
//   const seed = await seedToolServerData(join(box.dataDir, "spyglass.db"));
//   seed.a.key          // plaintext key of brand A (Autopilot account)
//   seed.a.ids          // ids of A's records, for isolation checks
import { eq } from "drizzle-orm";
import { createBrand } from "../../src/brands/service";
import { openDatabase, type SqliteDb } from "../../src/db/client";
import { accounts, answers, articles, competitors, type Plan, prompts, promptTags, tags } from "../../src/db/schema";
import { newId } from "../../src/ids";
import { createApiKey } from "../../src/keys/service";
import { promptTextKey } from "../../src/prompts/service";

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

async function insertAccount(db: SqliteDb, email: string, plan: Plan): Promise<string> {
  const id = newId("acc");
  // Tool-server tests never log in: the hash is a placeholder no password matches.
  await db.orm.insert(accounts).values({ id, email, passwordHash: "!", plan, createdAt: Date.now() });
  return id;
}

async function seedBrand(db: SqliteDb, email: string, name: string, domain: string, plan: Plan): Promise<SeededBrand> {
  const accountId = await insertAccount(db, email, plan === "none" ? "visibility" : plan);
  const brand = await createBrand(db, accountId, { name, domain });
  const key = await createApiKey(db, accountId, { name: `${name} key`, brandId: brand.id });
  if (plan === "none") await db.orm.update(accounts).set({ plan: "none" }).where(eq(accounts.id, accountId));
  return { accountId, email, brandId: brand.id, brandName: name, key: key.plaintext, keyId: key.key.id };
}

async function seedRecords(db: SqliteDb, brandId: string, word: string): Promise<BrandRecords> {
  const now = Date.now() - 86_400_000;
  const tagId = newId("tag");
  const tagName = `${word} launch`;
  await db.orm.insert(tags).values({ id: tagId, brandId, name: tagName, nameKey: tagName.toLowerCase(), color: "#112233", createdAt: now });
  const promptId = newId("prm");
  const text = `best ${word} software for small teams`;
  await db.orm
    .insert(prompts)
    .values({ id: promptId, brandId, text, textKey: promptTextKey(text), country: "US", language: "en", createdAt: now });
  await db.orm.insert(promptTags).values({ promptId, tagId });
  const archivedPromptId = newId("prm");
  const archived = `is ${word} worth it`;
  await db.orm
    .insert(prompts)
    .values({ id: archivedPromptId, brandId, text: archived, textKey: promptTextKey(archived), createdAt: now, archivedAt: now });
  const competitorId = newId("cmp");
  await db.orm.insert(competitors).values({
    id: competitorId,
    brandId,
    name: `${word} Rival`,
    aliases: [`${word}R`],
    domains: [`${word.toLowerCase()}-rival.com`],
    createdAt: now,
  });
  const [answer] = await db.orm
    .insert(answers)
    .values({
      brandId,
      promptId,
      engine: "fake",
      model: "fake-1",
      status: "ok",
      text: `For small teams, ${word} Rival is a common pick.`,
      createdAt: now,
    })
    .returning({ id: answers.id });
  const articleId = newId("art");
  const articleSlug = `why-${word.toLowerCase()}-for-small-teams`;
  await db.orm.insert(articles).values({
    id: articleId,
    brandId,
    promptId,
    title: `Why ${word} for small teams`,
    slug: articleSlug,
    markdown: `Small teams pick ${word}.`,
    html: `<p>Small teams pick ${word}.</p>`,
    status: "published",
    publishedAt: now,
    createdAt: now,
    updatedAt: now,
  });
  return { promptId, archivedPromptId, tagId, tagName, competitorId, answerId: String(answer!.id), articleId, articleSlug };
}

/** Creates (and migrates) the database at `dbPath` and seeds it; the handle is closed on return. */
export async function seedToolServerData(dbPath: string): Promise<ToolServerSeed> {
  const db = openDatabase(dbPath);
  try {
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
  } finally {
    db.close();
  }
}

// Stored answers for tests, written the way a tracking run writes them (analysis, rollups), so that
// every analytics tool sees them: the tool server's fixtures insert bare rows the rollups never saw.
import { type Db, openDatabase } from "../../src/db/client";
import { analyzeAnswer } from "../../src/tracking/analysis/analyze";
import { AnswerWriter } from "../../src/tracking/answer-writer";
import { loadRoster } from "../../src/tracking/roster";

export interface TestAnswer {
  promptId: string;
  engine: string;
  text: string;
  citations?: string[];
  daysAgo: number;
}

export async function writeAnswers(db: Db, brandId: string, answers: readonly TestAnswer[]): Promise<void> {
  const roster = await loadRoster(db, brandId);
  const writer = new AnswerWriter(db);
  db.sqlite.transaction(() => {
    for (const [i, a] of answers.entries()) {
      const analysis = analyzeAnswer({ text: a.text, providerCitations: a.citations ?? [], roster: roster.members });
      writer.write(
        {
          brandId,
          runId: null,
          promptId: a.promptId,
          engine: a.engine,
          model: `${a.engine}-model`,
          sample: i + 1,
          status: "ok",
          text: a.text,
          providerCitations: a.citations ?? [],
          error: null,
          latencyMs: 100,
          tokensIn: 10,
          tokensOut: 20,
          createdAt: Date.now() - a.daysAgo * 86_400_000 - i * 1000,
        },
        analysis,
        roster,
      );
    }
  })();
}

/**
 * Writes answers into the database file at `dbPath` before a binary opens it. bun:sqlite closes a
 * connection whose prepared statements are still alive only once they are collected (the writer's
 * are): collecting now closes it here, not while the binary starts (which then met "database is locked").
 */
export async function writeAnswersToFile(dbPath: string, brandId: string, answers: readonly TestAnswer[]): Promise<void> {
  const db = openDatabase(dbPath);
  try {
    await writeAnswers(db, brandId, answers);
  } finally {
    db.close();
    Bun.gc(true);
  }
}

/** A fortnight of answers for brand A of the tool-server seed: the brand gains on Acme Rival. */
export function fortnightOfAnswers(promptId: string, brandName: string, rival: string): TestAnswer[] {
  const out: TestAnswer[] = [];
  for (let day = 13; day >= 0; day--) {
    for (const engine of ["chatgpt", "claude"]) {
      const mentioned = (day + (engine === "claude" ? 1 : 0)) % 3 !== 0 || day < 4;
      out.push({
        promptId,
        engine,
        daysAgo: day,
        text: mentioned
          ? `${brandName} is the pick for small teams; ${rival} is an alternative.`
          : `${rival} is the usual pick for small teams.`,
        citations: ["https://www.g2.com/categories/analytics", `https://${rival.toLowerCase().replace(/ /g, "-")}.com/pricing`],
      });
    }
  }
  return out;
}

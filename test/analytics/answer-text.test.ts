// get_answer reads a long answer in parts: text_offset where to start, text_length the whole, and
// text_truncated while more follows; the parts put together are the stored text, an emoji never cut
// in two (an answer over 20,000 characters was cut with no way to read the rest).
import { afterAll, expect, test } from "bun:test";
import { getAnswer, MAX_TEXT } from "../../src/analytics/answers";
import { type AppContext } from "../../src/context";
import { loadRoster } from "../../src/tracking/roster";
import { addBrand, openApp } from "./dataset";

let app: AppContext | undefined;
afterAll(async () => {
  await app?.db.close();
});

test("a long answer is read whole, part after part, and no part splits an emoji", async () => {
  app = await openApp();
  const s = await addBrand(app, { name: "Acme", prompts: [{ key: "P", text: "best crm" }] });
  // An emoji across the first part's end (code units 19,999 and 20,000), Acme named near the end.
  const text = `${"a".repeat(MAX_TEXT - 1)}🚀${"b ".repeat(12_000)}Acme is named here.`;
  const id = await app.tracking.storeAnswer(
    {
      brandId: s.brandId,
      runId: null,
      promptId: s.prompts.P!,
      engine: "gpt",
      model: "m",
      sample: 0,
      status: "ok",
      text,
      providerCitations: [],
      error: null,
      latencyMs: 1,
      tokensIn: 1,
      tokensOut: 1,
      createdAt: Date.parse("2025-03-02T10:00:00Z"),
    },
    await loadRoster(app.db, s.brandId),
  );
  const answerId = `ans_${id}`;
  const parts: string[] = [];
  let offset = 0;
  for (let i = 0; i < 5; i++) {
    const { answer } = await getAnswer(app, s.brandId, answerId, offset);
    expect(answer.text_offset).toBe(offset);
    expect(answer.text_length).toBe(text.length);
    // No part ends or starts inside the emoji's pair.
    expect(answer.text.isWellFormed()).toBe(true);
    parts.push(answer.text);
    offset += answer.text.length;
    if (!answer.text_truncated) break;
  }
  expect(parts.length).toBe(3);
  expect(parts[0]!.length).toBe(MAX_TEXT - 1);
  expect(parts.join("")).toBe(text);
  // Mentions' offsets are in the whole text, whichever part is read.
  const { answer } = await getAnswer(app, s.brandId, answerId, MAX_TEXT);
  expect(answer.mentions[0]!.offset).toBe(text.lastIndexOf("Acme"));
  // An offset inside the emoji starts at the emoji; one past the end gives nothing more.
  expect((await getAnswer(app, s.brandId, answerId, MAX_TEXT)).answer.text_offset).toBe(MAX_TEXT - 1);
  expect((await getAnswer(app, s.brandId, answerId, text.length + 5)).answer).toMatchObject({ text: "", text_truncated: false });
});

import { describe, expect, test } from "bun:test";
import { analyzeAnswer } from "../../../src/tracking/analysis/analyze";
import { type RosterMember } from "../../../src/tracking/analysis/mentions";
import { sentenceBounds, toUnitScore } from "../../../src/tracking/analysis/sentiment";

const roster: RosterMember[] = [
  { id: "acme", name: "Acme", aliases: ["Acme Corp"] },
  { id: "beta", name: "Beta", aliases: [] },
  { id: "joy", name: "Happy Cow", aliases: [] },
];

function sentimentOf(text: string): Record<string, number> {
  const result = analyzeAnswer({ text, providerCitations: [], roster });
  return Object.fromEntries(result.mentions.map((m) => [m.member_id, m.sentiment]));
}

describe("sentiment", () => {
  test("maps the AFINN sum with tanh(sum / 5)", () => {
    expect(toUnitScore(0)).toBe(0);
    expect(toUnitScore(3)).toBeCloseTo(Math.tanh(0.6), 4);
    expect(toUnitScore(-5)).toBeCloseTo(-0.7616, 4);
    expect(toUnitScore(1000)).toBe(1);
  });

  test("is scored only on the sentences that mention the member", () => {
    const s = sentimentOf("Acme is excellent. Beta is terrible and awful. Beta was founded in 2001.");
    expect(s.acme).toBeGreaterThan(0.5);
    expect(s.beta).toBeLessThan(-0.5);
  });

  test("a sentence with no opinion words is neutral", () => {
    expect(sentimentOf("Acme was founded in 2010 in Ohio.")).toEqual({ acme: 0 });
  });

  test("the library's negation flips the word right after a negator", () => {
    expect(sentimentOf("Acme is not good.").acme).toBeLessThan(0);
    expect(sentimentOf("Acme is good.").acme).toBeGreaterThan(0);
  });

  test("an answer not in English scores 0 (neutral), rather than with English words that are other languages' words", () => {
    // die, hell, Bad, war and Gift are English words AFINN scores (−3, −4, −3, −2, +2).
    const german = sentimentOf(
      "Die Ausstellung von Acme ist hell und modern, das Bad war perfekt und die Beratung ausgezeichnet. Beta ist Gift für Ihr Budget.",
    );
    expect(german).toEqual({ acme: 0, beta: 0 });
    expect(sentimentOf("No Acme, no entanto, o atendimento é melhor do que na Beta e os clientes gostam muito.")).toEqual({
      acme: 0,
      beta: 0,
    });
    // Dutch and French share words with English ("is", "of", "on"); their own common words decide.
    expect(sentimentOf("Acme is een goede keuze voor kleine teams en het is niet duur; Beta is slecht.")).toEqual({ acme: 0, beta: 0 });
    expect(sentimentOf("Acme est un excellent choix pour les petites équipes et Beta est un désastre.")).toEqual({ acme: 0, beta: 0 });
    expect(
      analyzeAnswer({ text: "ソニーのテレビは素晴らしい。", providerCitations: [], roster: [{ id: "s", name: "ソニー", aliases: [] }] })
        .mentions,
    ).toEqual([{ member_id: "s", offset: 0, rank: 1, sentiment: 0 }]);
    // The prompt's language, when set, decides: a short Portuguese answer has none of the common words.
    const itau = [{ id: "itau", name: "Itaú", aliases: [] }];
    expect(
      analyzeAnswer({ text: "Itaú: melhor banco no Brasil, com app excelente.", providerCitations: [], roster: itau, language: "pt-BR" })
        .mentions[0]!.sentiment,
    ).toBe(0);
    expect(
      analyzeAnswer({ text: "Itaú is an excellent bank.", providerCitations: [], roster: itau, language: "en-GB" }).mentions[0]!.sentiment,
    ).toBeGreaterThan(0.5);
    // The roster's names are not the answer's language: a competitor called "La Marzocco" makes no answer Spanish.
    expect(
      analyzeAnswer({
        text: "Top espresso machines:\n1. La Marzocco Linea Mini – superb\n2. Breville Barista Express – excellent value",
        providerCitations: [],
        roster: [
          { id: "b", name: "Breville", aliases: [] },
          { id: "lm", name: "La Marzocco", aliases: [] },
        ],
      }).mentions.find((m) => m.member_id === "b")!.sentiment,
    ).toBeGreaterThan(0.5);
    // English is scored as before: prose with a foreign word, a list of names, a table, a name in another script.
    expect(sentimentOf("Acme is excellent.").acme).toBeGreaterThan(0.5);
    expect(
      sentimentOf("For a small team in Munich, Acme is the best choice: its Kundenservice is excellent and the price is fair.").acme,
    ).toBeGreaterThan(0.5);
    expect(sentimentOf("## Best CRMs\n1. **Acme** – excellent, easy setup\n2. **Beta** – awful support").acme).toBeGreaterThan(0.5);
    expect(sentimentOf("| Tool | Verdict |\n|---|---|\n| Acme | excellent |\n| Beta | awful |").beta).toBeLessThan(-0.5);
    expect(
      analyzeAnswer({ text: "Sony (ソニー) makes excellent TVs.", providerCitations: [], roster: [{ id: "s", name: "Sony", aliases: [] }] })
        .mentions[0]!.sentiment,
    ).toBeGreaterThan(0.5);
  });

  test("a member's own name carries no sentiment", () => {
    expect(sentimentOf("Happy Cow sells ice cream.")).toEqual({ joy: 0 });
  });

  test("each line of a list is its own sentence", () => {
    const s = sentimentOf("Top picks:\n- **Acme**: great support\n- **Beta**: poor docs");
    expect(s.acme).toBeGreaterThan(0);
    expect(s.beta).toBeLessThan(0);
  });

  test("sentences split at line breaks and at . ! ? followed by space, not inside acme.com or 3.5", () => {
    const text = "Visit acme.com now. Version 3.5 is out! Really?\nNext";
    expect(sentenceBounds(text).map(([a, b]) => text.slice(a, b).trim())).toEqual([
      "Visit acme.com now.",
      "Version 3.5 is out!",
      "Really?",
      "Next",
    ]);
  });
});

describe("analyzeAnswer", () => {
  test("returns ranked mentions with sentiment and normalised citations", () => {
    const text = [
      "For small teams, **Beta** is a good choice ([source](https://www.beta.io/?utm_source=gpt)).",
      "Acme Corp is also solid but expensive; see https://acme.com/pricing/.",
    ].join("\n");
    const result = analyzeAnswer({ text, providerCitations: ["https://review.example.co.uk/best#top"], roster });
    expect(result.mentions.map(({ member_id, rank }) => ({ member_id, rank }))).toEqual([
      { member_id: "beta", rank: 1 },
      { member_id: "acme", rank: 2 },
    ]);
    expect(text.slice(result.mentions[1]!.offset).startsWith("Acme Corp")).toBe(true);
    expect(result.mentions[0]!.sentiment).toBeGreaterThan(0);
    expect(result.citations).toEqual([
      { url: "https://review.example.co.uk/best", domain: "example.co.uk" },
      { url: "https://beta.io", domain: "beta.io" },
      { url: "https://acme.com/pricing", domain: "acme.com" },
    ]);
  });

  test("a brand that is only cited is cited, not mentioned", () => {
    const result = analyzeAnswer({ text: "Sources: https://acme.com/blog", providerCitations: [], roster });
    expect(result.mentions).toEqual([]);
    expect(result.citations).toEqual([{ url: "https://acme.com/blog", domain: "acme.com" }]);
  });

  test("an empty answer has nothing", () => {
    expect(analyzeAnswer({ text: "", providerCitations: [], roster })).toEqual({ mentions: [], citations: [] });
  });
});

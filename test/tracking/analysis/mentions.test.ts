import { describe, expect, test } from "bun:test";
import fc from "fast-check";
import { findMentions, type RosterMember } from "../../../src/tracking/analysis/mentions";

const acme: RosterMember = { id: "acme", name: "Acme", aliases: [] };

function ids(text: string, roster: RosterMember[]): string[] {
  return findMentions(text, roster).map((m) => m.member_id);
}

describe("findMentions examples", () => {
  test("matches case-insensitively on word boundaries", () => {
    expect(findMentions("We like ACME a lot.", [acme])).toEqual([{ member_id: "acme", offset: 8, rank: 1 }]);
    expect(ids("Acmeville is a town; so is SuperAcme; acme2 is a model.", [acme])).toEqual([]);
    expect(ids("(Acme), 'acme', acme's, Acme-Corp, «Acme»", [acme])).toEqual(["acme"]);
  });

  test("Unicode letters are word characters", () => {
    expect(ids("Acmé and Acmeß and éAcme", [acme])).toEqual([]);
    expect(ids("Über Acme", [acme])).toEqual(["acme"]);
    expect(ids("Nous aimons Société Générale.", [{ id: "sg", name: "société générale", aliases: [] }])).toEqual(["sg"]);
  });

  test("in Japanese, Chinese and Korean, written without spaces, a name may touch the words around it", () => {
    const sony: RosterMember = { id: "sony", name: "ソニー", aliases: ["Sony"] };
    const panasonic: RosterMember = { id: "pana", name: "パナソニック", aliases: [] };
    const nintendo: RosterMember = { id: "nin", name: "任天堂", aliases: [] };
    const sharp: RosterMember = { id: "sharp", name: "シャープ", aliases: [] };
    const roster = [sony, panasonic, nintendo, sharp];
    // Particles (の, が, は, も) follow a name directly; the sentence's other members are found too.
    expect(ids("ソニーのテレビは画質が素晴らしいです。パナソニックも人気があります。シャープは安いです。", roster)).toEqual([
      "sony",
      "pana",
      "sharp",
    ]);
    expect(ids("任天堂が一番人気です。", roster)).toEqual(["nin"]);
    expect(ids("Sonyのヘッドホンがいい。", roster)).toEqual(["sony"]);
    expect(ids("삼성은 좋습니다", [{ id: "sam", name: "삼성", aliases: [] }])).toEqual(["sam"]);
    // Korean is written with spaces: a name begins a word ("신한" is not in "당신한테", you-to).
    expect(
      ids("당신한테 맞는 은행은 국민은행입니다", [
        { id: "shin", name: "신한", aliases: [] },
        { id: "kb", name: "국민은행", aliases: [] },
      ]),
    ).toEqual(["kb"]);
    // The brand's name inside an address is not a mention of it, even glued to the text before it.
    expect(ids("詳細はhttps://www.sony.co.jp/tv/をご覧ください。", [{ id: "s", name: "sony", aliases: [] }])).toEqual([]);
    // A run of katakana is one word: "ソニック" is not in "パナソニック", nor "ソニー" in "ソニーモバイル".
    expect(ids("パナソニックのテレビ", [{ id: "sonic", name: "ソニック", aliases: [] }])).toEqual([]);
    expect(ids("ソニーモバイルの電話", [sony])).toEqual([]);
    // A decomposed voiced kana is one letter: "ホンタ" is not in "ホンダ" spelt ホンタ + U+3099.
    expect(ids("ホンタ\u3099の車", [{ id: "h", name: "ホンタ", aliases: [] }])).toEqual([]);
    // Latin names keep their boundaries, whatever script is around.
    expect(ids("Sonyeの", [sony])).toEqual([]);
  });

  test("a name is found composed or decomposed, whichever way the answer or the roster spells it", () => {
    const muller: RosterMember = { id: "m", name: "Müller Küchen GmbH", aliases: [] };
    expect(ids("Mu\u0308ller Ku\u0308chen GmbH ist zuverlässig.", [muller])).toEqual(["m"]);
    expect(ids("Müller Küchen GmbH ist zuverlässig.", [{ ...muller, name: muller.name.normalize("NFD") }])).toEqual(["m"]);
    // A decomposed accent after the name is still part of its word.
    expect(ids("Acme\u0301 is another name", [acme])).toEqual([]);
  });

  test("full-width and half-width forms are the letters they stand for, in the answer and in the roster", () => {
    const sony: RosterMember = { id: "sony", name: "Sony", aliases: ["ソニー"] };
    const toyota: RosterMember = { id: "toyota", name: "トヨタ", aliases: [] };
    // Full-width Latin letters in Japanese text, any case; the offset is the answer's own.
    expect(findMentions("おすすめはＳＯＮＹのテレビです。", [sony])).toEqual([{ member_id: "sony", offset: 5, rank: 1 }]);
    expect(ids("ｓｏｎｙ製品", [sony])).toEqual(["sony"]);
    // Half-width katakana, and a voiced one written as a letter and a mark (ﾄﾞ).
    expect(ids("ｿﾆｰの新製品", [sony])).toEqual(["sony"]);
    expect(ids("ﾄﾖﾀの車", [toyota])).toEqual(["toyota"]);
    expect(ids("ﾄﾞﾖﾀ", [toyota])).toEqual([]);
    // A name stored full-width finds the ordinary spelling; a full-width word still has its edges.
    expect(ids("Sony is popular", [{ id: "w", name: "ＳＯＮＹ", aliases: [] }])).toEqual(["w"]);
    expect(ids("ＳＯＮＹＡ is another name", [sony])).toEqual([]);
    // A full-width address is an address: taken out, as "www.sony.com" is.
    expect(ids("See ｗｗｗ．ｓｏｎｙ．ｃｏｍ or ｈｔｔｐｓ：／／ｓｏｎｙ．ｃｏｍ／ｔｖ for more", [sony])).toEqual([]);
    // Symbols outside the block keep their meaning: "Sony™" is Sony, not the word "SonyTM".
    expect(ids("Sony™ and Sony①", [sony])).toEqual(["sony"]);
  });

  test("a brand that is only in URLs is not mentioned, but a link's visible text is", () => {
    expect(ids("Sources: https://acme.com/pricing and [docs](https://www.acme.com/docs)", [acme])).toEqual([]);
    expect(ids("See www.acme.com for details", [acme])).toEqual([]);
    expect(findMentions("Try [Acme](https://acme.com) today", [acme])).toEqual([{ member_id: "acme", offset: 5, rank: 1 }]);
    // A bare domain in prose is not a URL (GFM would not link it), so it names the brand.
    expect(ids("Go to acme.com", [acme])).toEqual(["acme"]);
  });

  test("offsets point into the original text even after URLs are removed", () => {
    const text = "Read https://beta.io/x first, then Acme.";
    const [m] = findMentions(text, [acme]);
    expect(text.slice(m!.offset, m!.offset + 4)).toBe("Acme");
  });

  test("aliases shorter than 3 characters are ignored; the name always counts", () => {
    const roster: RosterMember[] = [{ id: "hp", name: "HP", aliases: ["H", "HPQ"] }];
    expect(findMentions("h is a letter; HPQ stock", roster)).toEqual([{ member_id: "hp", offset: 15, rank: 1 }]);
    expect(ids("hp laptops", roster)).toEqual(["hp"]);
  });

  test("regex special characters in names are literal", () => {
    const roster: RosterMember[] = [
      { id: "cpp", name: "C++", aliases: [] },
      { id: "net", name: ".NET", aliases: [] },
      { id: "q", name: "Why? (Inc.)", aliases: [] },
    ];
    expect(ids("I use C++ and ASP.NET; also Why? (Inc.) helps. Cxx is not it.", roster)).toEqual(["cpp", "net", "q"]);
    expect(ids("a.NETwork", roster)).toEqual([]);
  });

  test("internal whitespace in a name matches any whitespace run", () => {
    expect(ids("Acme\n  Cloud rocks", [{ id: "c", name: "Acme Cloud", aliases: [] }])).toEqual(["c"]);
  });

  test("overlapping names: the longest match wins where they overlap", () => {
    const roster: RosterMember[] = [acme, { id: "cloud", name: "Acme Cloud", aliases: [] }];
    expect(findMentions("Acme Cloud is fast.", roster)).toEqual([{ member_id: "cloud", offset: 0, rank: 1 }]);
    expect(findMentions("Acme Cloud beats Acme.", roster)).toEqual([
      { member_id: "cloud", offset: 0, rank: 1 },
      { member_id: "acme", offset: 17, rank: 2 },
    ]);
  });

  test("ranks follow first-mention order, each member once", () => {
    const roster: RosterMember[] = [acme, { id: "beta", name: "Beta", aliases: ["BetaSoft"] }, { id: "gamma", name: "Gamma", aliases: [] }];
    expect(findMentions("BetaSoft leads, then Acme, then Beta again, then Acme.", roster)).toEqual([
      { member_id: "beta", offset: 0, rank: 1 },
      { member_id: "acme", offset: 21, rank: 2 },
    ]);
  });

  test("two members sharing a name are both mentioned, ranked in roster order", () => {
    const roster: RosterMember[] = [acme, { id: "acme2", name: "Other", aliases: ["acme"] }];
    expect(findMentions("Acme!", roster)).toEqual([
      { member_id: "acme", offset: 0, rank: 1 },
      { member_id: "acme2", offset: 0, rank: 2 },
    ]);
  });
});

// Names built from word runs joined by separators, including regex metacharacters. No ':', '/', '[',
// ']' or leading "www" so a name can never turn into a URL or a markdown link.
const wordRun = fc.stringMatching(/^[A-Za-z0-9éàü]{1,8}$/);
const joiner = fc.constantFrom(" ", ".", "+", "&", "-", "*", "?", "$", "^", "|", "(", ")", "'");
const name = fc
  .tuple(wordRun, fc.array(fc.tuple(joiner, wordRun), { maxLength: 2 }))
  .map(([head, rest]) => head + rest.map(([j, w]) => j + w).join(""))
  .filter((n) => [...n].length >= 3 && !/^www/i.test(n));
// Context free of ':', '/', '.', '[' and ']', so it cannot form URLs or links around the name.
const context = fc.stringMatching(/^[A-Za-z0-9 ,;!?()"'\n-]{0,30}$/);
const nonWord = fc.constantFrom(" ", ",", "(", ")", "!", "\n", '"', "-", "—", "«");
const wordChar = fc.stringMatching(/^[A-Za-z0-9éß]{1,5}$/);
const caseOf = fc.constantFrom<(s: string) => string>(
  (s) => s,
  (s) => s.toUpperCase(),
  (s) => s.toLowerCase(),
);

describe("findMentions properties", () => {
  test("a name embedded between non-word characters is always found, in any case", () => {
    fc.assert(
      fc.property(name, context, nonWord, nonWord, context, caseOf, (n, before, left, right, after, recase) => {
        const prefix = before + left;
        const text = prefix + recase(n) + right + after;
        const found = findMentions(text, [{ id: "x", name: n, aliases: [] }]);
        expect(found).toHaveLength(1);
        expect(found[0]!.offset).toBeLessThanOrEqual(prefix.length);
      }),
    );
  });

  test("a name embedded inside a word is never found", () => {
    const wordEdged = name.filter((n) => /^[\p{L}\p{N}]/u.test(n) && /[\p{L}\p{N}]$/u.test(n));
    fc.assert(
      fc.property(wordEdged, wordChar, wordChar, (n, left, right) => {
        expect(findMentions(left + n + right, [{ id: "x", name: n, aliases: [] }])).toEqual([]);
      }),
    );
  });

  test("ranks are 1..k in order of offset", () => {
    const roster: RosterMember[] = ["Acme", "Beta", "Gamma", "Delta"].map((n) => ({ id: n, name: n, aliases: [] }));
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom("Acme", "Beta", "Gamma", "Delta", "the", "and", "Acmeville", "."), { maxLength: 20 }),
        (words) => {
          const found = findMentions(words.join(" "), roster);
          expect(found.map((m) => m.rank)).toEqual(found.map((_, i) => i + 1));
          const offsets = found.map((m) => m.offset);
          expect(offsets).toEqual([...offsets].sort((a, b) => a - b));
          expect(new Set(found.map((m) => m.member_id)).size).toBe(found.length);
        },
      ),
    );
  });
});

// Internationalised domain names and addresses as people read them: the server stores and links
// them in their ASCII form (xn--mller-kchen-thbg.de, /k%C3%BCchen), as the URL standard keeps
// them, and the dashboard shows müller-küchen.de/küchen. Browsers have no toUnicode of their own;
// punycode.js is the well-kept decoder.
//
// A name that could pass for another is shown as stored, as browsers do in their address bar: a
// label with Cyrillic or Greek letters ("аpple" with a Cyrillic а looks like "apple"), or one that
// mixes Latin with another script other than the Chinese, Japanese and Korean ones written beside
// it. Display only: links keep the address as it is.
import { toUnicode } from "punycode/punycode.es6.js";

const SCRIPTS: Array<[string, RegExp]> = [
  ["Latin", /\p{sc=Latin}/u],
  ["Cyrillic", /\p{sc=Cyrillic}/u],
  ["Greek", /\p{sc=Greek}/u],
  ["Han", /\p{sc=Han}/u],
  ["Hiragana", /\p{sc=Hiragana}/u],
  ["Katakana", /\p{sc=Katakana}/u],
  ["Hangul", /\p{sc=Hangul}/u],
  ["Bopomofo", /\p{sc=Bopomofo}/u],
];
const LETTER = /\p{L}/u;
/** Scripts written together with Chinese characters (and Latin) in Japanese, Korean and Chinese names. */
const CJK_GROUPS = [new Set(["Han", "Hiragana", "Katakana"]), new Set(["Han", "Hangul"]), new Set(["Han", "Bopomofo"])];

function scriptOf(char: string): string {
  for (const [name, pattern] of SCRIPTS) if (pattern.test(char)) return name;
  return "other";
}

/** Whether a decoded label reads as what it is: one script, or Latin with the CJK ones. */
function readsSafely(label: string): boolean {
  const scripts = new Set<string>();
  for (const char of label) if (LETTER.test(char)) scripts.add(scriptOf(char));
  if (scripts.has("Cyrillic") || scripts.has("Greek")) return false;
  // Another script (Arabic, Hebrew, Thai…) only on its own.
  if (scripts.has("other")) return scripts.size === 1;
  scripts.delete("Latin");
  return scripts.size === 0 || CJK_GROUPS.some((group) => [...scripts].every((s) => group.has(s)));
}

/** The host as people write it (müller-küchen.de), or as stored when a label could pass for another. */
export function readableDomain(host: string): string {
  if (!/(^|\.)xn--/i.test(host)) return host;
  try {
    const labels = host.split(".").map((label) => (/^xn--/i.test(label) ? toUnicode(label) : label));
    return labels.every(readsSafely) ? labels.join(".") : host;
  } catch {
    return host;
  }
}

/** An http(s) address with its host readable and its path's percent-escapes decoded; anything else as given. */
export function readableUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return url;
  }
  if (parsed.protocol !== "http:" && parsed.protocol !== "https:") return url;
  const rest = `${parsed.pathname}${parsed.search}${parsed.hash}`;
  let decoded = rest;
  try {
    decoded = decodeURI(rest);
  } catch {}
  return `${parsed.protocol}//${readableDomain(parsed.hostname)}${parsed.port ? `:${parsed.port}` : ""}${decoded}`;
}

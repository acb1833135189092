// Article slugs: the URL segment a brand's site uses for an article. Lowercase a-z, 0-9 and "-",
// unique per brand, derived from the title unless given, and fixed once the article is published.
import { Invalid } from "../errors";

export const MAX_SLUG = 100;
/** Derived slugs stay shorter than explicit ones, leaving room for a "-2" suffix. */
const MAX_DERIVED_SLUG = 80;
export const FALLBACK_SLUG = "untitled";

const SLUG_PATTERN = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

export function isValidSlug(value: string): boolean {
  return value.length <= MAX_SLUG && SLUG_PATTERN.test(value);
}

/** Validates an explicit slug: lowercase letters, digits and single hyphens between them. */
export function parseSlug(value: string): string {
  const slug = value.trim();
  if (!isValidSlug(slug)) {
    throw new Invalid(
      `slug: "${slug.slice(0, 60)}" is not a valid slug; use 1 to ${MAX_SLUG} lowercase letters, digits and single hyphens (for example "best-crm-for-startups").`,
      "invalid_slug",
    );
  }
  return slug;
}

let transliterate: ((text: string) => string) | null = null;

/**
 * The text in ASCII letters: accents dropped (NFKD), and other scripts and letters (ß, Œ, Cyrillic,
 * Greek, CJK…) transliterated by any-ascii, whose tables (~6 ms to load) are read on the first
 * title that needs them. Symbols outside ASCII (emoji, ™) become spaces rather than their names.
 */
function toAscii(text: string): string {
  // Composed again after the accents go: kana's voicing marks are combining marks too (デ is テ and
  // U+3099), and any-ascii reads デ as "de" but テ and a stray mark as "te".
  const stripped = text
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .normalize("NFC");
  if (/^[\x00-\x7f]*$/.test(stripped)) return stripped;
  transliterate ??= (require("any-ascii") as typeof import("any-ascii")).default;
  return transliterate(stripped.replace(/[^\p{L}\p{N}\p{M}\x00-\x7f]+/gu, " "));
}

/**
 * "Crème brûlée: 10 tips!" → "creme-brulee-10-tips", "Straße" → "strasse", "Как выбрать CRM" →
 * "kak-vybrat-crm"; "" or only symbols → "untitled".
 */
export function slugify(title: string): string {
  const ascii = toAscii(title)
    .toLowerCase()
    .replace(/['’]/g, "")
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "");
  if (ascii === "") return FALLBACK_SLUG;
  if (ascii.length <= MAX_DERIVED_SLUG) return ascii;
  // Cut at a word boundary when one is near, so the slug does not end in half a word.
  const cut = ascii.slice(0, MAX_DERIVED_SLUG);
  const lastHyphen = cut.lastIndexOf("-");
  return (lastHyphen >= MAX_DERIVED_SLUG / 2 ? cut.slice(0, lastHyphen) : cut).replace(/-+$/, "");
}

/** `base`, else `base-2`, `base-3`… : the first one `isTaken` says is free. */
export async function firstFreeSlug(base: string, isTaken: (slug: string) => Promise<boolean>): Promise<string> {
  if (!(await isTaken(base))) return base;
  for (let n = 2; n < 10_000; n++) {
    const candidate = `${base}-${n}`;
    if (!(await isTaken(candidate))) return candidate;
  }
  throw new Invalid(`slug: too many articles are already named "${base}"; give this one its own slug.`, "invalid_slug");
}

/** Whether `slug` is `base` or one of its collision suffixes (`base-2`, `base-3`…). */
export function isDerivedFrom(slug: string, base: string): boolean {
  if (slug === base) return true;
  if (!slug.startsWith(`${base}-`)) return false;
  return /^[1-9][0-9]*$/.test(slug.slice(base.length + 1));
}

// punycode.js ships no types; the one function the dashboard uses (domains.ts).
declare module "punycode/punycode.es6.js" {
  /** A domain or label with its xn-- labels decoded. */
  export function toUnicode(input: string): string;
}

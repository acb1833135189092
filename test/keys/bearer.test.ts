// The Authorization header's credential: the fast path for a plain API key and RFC 6750's general
// form give the same credential for every spelling.
import { describe, expect, test } from "bun:test";
import { bearerCredential, generateApiKey } from "../../src/keys/format";

const GENERAL = /^Bearer[ ]+(\S+)\s*$/i;

describe("bearerCredential", () => {
  test("every spelling of the header gives the credential RFC 6750's form gives", () => {
    const key = generateApiKey().plaintext;
    const spellings = [
      `Bearer ${key}`,
      `bearer ${key}`,
      `BEARER ${key}`,
      `Bearer   ${key}`,
      `Bearer ${key} `,
      `Bearer ${key}\t`,
      `Bearer ${key}x`,
      `Bearer ${key.slice(0, -1)}`,
      `Bearer ${key} extra`,
      `Bearer ${key}\u00a0`,
      `Bearer\t${key}`,
      `Bearer ${key.replace("_live_", "_test_")}`,
      "Bearer sgo_at_abcdef",
      "Bearer ",
      "Bearer",
      `Basic ${key}`,
      key,
      "",
    ];
    for (const header of spellings) {
      expect(`${JSON.stringify(header)} → ${bearerCredential(header)}`).toBe(`${JSON.stringify(header)} → ${GENERAL.exec(header)?.[1]}`);
    }
    expect(bearerCredential(`Bearer ${key}`)).toBe(key);
    expect(bearerCredential(`Bearer ${key} extra`)).toBeUndefined();
  });
});

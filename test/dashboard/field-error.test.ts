// A refusal tied to the form's field it is about (src/dashboard/web/components/field-error.ts).
import { expect, test } from "bun:test";
import { ApiError } from "../../src/dashboard/web/api";
import { fieldErrorOf } from "../../src/dashboard/web/components/field-error";

const refusal = (message: string, code = "invalid_input") => new ApiError(400, message, code, null);

test("a feature's 'field: sentence' goes under the field, its first word capitalised", () => {
  expect(fieldErrorOf(refusal("name: a key's name is at most 100 characters; this one is 101."), ["name"])).toEqual({
    field: "name",
    message: "A key's name is at most 100 characters; this one is 101.",
  });
});

test("a name the sentence begins with keeps its own spelling", () => {
  expect(
    fieldErrorOf(refusal("domains[0]: acme.com is the brand's own domain (acme.com); its citations count as the brand's."), ["domains"]),
  ).toEqual({ field: "domains", message: "acme.com is the brand's own domain (acme.com); its citations count as the brand's." });
});

test("a tool's input check about one field goes under it, without the tool's name", () => {
  expect(fieldErrorOf(refusal("Invalid input for update_prompt: text must be at least 3 characters."), ["text", "country"])).toEqual({
    field: "text",
    message: "Must be at least 3 characters.",
  });
  // About an entry of a list field, it stays the form's: under the whole field it would lose which entry.
  const entry = "Invalid input for create_competitor: aliases[1] must be at least 3 characters.";
  expect(fieldErrorOf(refusal(entry), ["aliases"])).toEqual({ field: null, message: entry });
  // About several fields, it stays the form's.
  const several = "Invalid input for update_prompt: text must be at least 3 characters; country must be a two-letter country code.";
  expect(fieldErrorOf(refusal(several), ["text", "country"])).toEqual({ field: null, message: several });
});

test("a code ties a sentence naming no field; another field's sentence stays the form's", () => {
  expect(fieldErrorOf(refusal("An account with this email already exists.", "email_taken"), ["email"], { email_taken: "email" })).toEqual({
    field: "email",
    message: "An account with this email already exists.",
  });
  expect(fieldErrorOf(refusal("slug: taken."), ["title"])).toEqual({ field: null, message: "slug: taken." });
});

test("a field of a list's entry goes under the form's field of that name (a value the form gives every entry)", () => {
  expect(
    fieldErrorOf(refusal("prompts[0].country: give a two-letter country code such as US or DE.", "invalid_country"), [
      "country",
      "language",
    ]),
  ).toEqual({ field: "country", message: "Give a two-letter country code such as US or DE." });
  // A form without that field keeps the sentence as its own.
  const other = "prompts[3].language: give a language code such as en or pt-BR.";
  expect(fieldErrorOf(refusal(other), ["country"])).toEqual({ field: null, message: other });
  // The tool's input check names each line's entry: one field for all of them is that field's sentence.
  const each =
    "Invalid input for create_prompts: prompts[0].language must be a language code such as en or pt-BR; prompts[1].language must be a language code such as en or pt-BR.";
  expect(fieldErrorOf(refusal(each), ["country", "language"])).toEqual({
    field: "language",
    message: "Must be a language code such as en or pt-BR.",
  });
  const many = `Invalid input for create_prompts: ${Array.from({ length: 5 }, (_, i) => `prompts[${i}].language must be a language code such as en or pt-BR`).join("; ")} (and 2 more: prompts[5].language, prompts[6].language).`;
  expect(fieldErrorOf(refusal(many), ["country", "language"]).field).toBe("language");
  // Problems of two fields stay the form's.
  const two =
    "Invalid input for create_prompts: prompts[0].language must be a language code such as en or pt-BR; prompts[0].country must be a two-letter country code such as US or DE.";
  expect(fieldErrorOf(refusal(two), ["country", "language"])).toEqual({ field: null, message: two });
});

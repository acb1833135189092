// Schema pieces shared by the configuration tools, so that the same field reads the same everywhere.
import { z } from "zod";
import { DEFAULT_LIMIT, MAX_LIMIT } from "../../paging";
import { type ToolAnnotations } from "../registry";

export const READ_ONLY: ToolAnnotations = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };
/** Creates records named uniquely: a repeated call adds nothing (a taken name is refused, a known prompt listed as a duplicate). */
export const CREATES: ToolAnnotations = { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false };
/** Creates a new record on every call (an article draft). */
export const CREATES_EACH_TIME: ToolAnnotations = {
  readOnlyHint: false,
  destructiveHint: false,
  idempotentHint: false,
  openWorldHint: false,
};
/**
 * Replaces fields (an article's body, a competitor's aliases, a prompt's tags): destructive in the
 * MCP sense (not additive only), so a client may ask before calling; the same call twice changes nothing more.
 */
export const UPDATES: ToolAnnotations = { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false };
export const DELETES: ToolAnnotations = { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false };
/** Asks the configured AI models: what comes back is not known in advance, and it costs provider calls. */
export const ASKS_MODELS: ToolAnnotations = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true };

/** Items per page; lists of figures default to fewer items than lists of records. */
export function pageLimit(defaultLimit: number) {
  return z.number().int().min(1).max(MAX_LIMIT).default(defaultLimit).describe(`Items per page, 1-${MAX_LIMIT} (default ${defaultLimit}).`);
}

export const limit = pageLimit(DEFAULT_LIMIT);

export const cursor = z.string().min(1).max(500).optional().describe("next_cursor of the previous page, unchanged.");

export const nextCursor = z.string().nullable().describe("Pass as cursor to get the next page; null on the last page.");

export function idOf(what: string, from: string) {
  return z.string().min(1).max(64).describe(`The ${what}'s id, from ${from}.`);
}

export const timestamp = z.string().describe("ISO 8601, UTC");

/** A language as BCP 47 writes it (en, pt-BR), for a prompt's language and an article's. */
export const LANGUAGE_CODE = /^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$/;
export const LANGUAGE_CODE_RULE = "must be a language code such as en or pt-BR";

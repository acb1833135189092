// Limits on a request's JSON, for every door that takes JSON (the dashboard's API, the tool server,
// OAuth client registration), checked on the text before JSON.parse: bytes, UTF-8, how deeply arrays
// and objects nest, and how many values there are. Parsing a body, walking it (text.ts) and handing
// it to a schema cost time in the number of its values and, for a schema that recurses, in its depth:
// an 8 MiB body of nested arrays, sent without signing in, held the serving thread for 1.5–3 s before
// its 400 (three at once stalled every request for 7 s); an 80 KB one nested 40,000 deep in a JSON-RPC
// response overflowed the MCP SDK's stack after 5 s. No body this API takes comes near the limits.
import { Elysia } from "elysia";
import { AppError, Invalid } from "../errors";

/** The most bytes of JSON one request may carry: an article's 200 KB of Markdown fits, escaped. */
export const MAX_JSON_BODY_BYTES = 1024 * 1024;
/** How deeply arrays and objects may nest (a tool's input nests 3 deep at most). */
export const MAX_JSON_DEPTH = 64;
/** How many values one body may hold (arrays of up to 500 items are the largest any input takes). */
export const MAX_JSON_VALUES = 10_000;

const DEPTH_SENTENCE = `its arrays and objects are nested more than ${MAX_JSON_DEPTH} deep`;
const VALUES_SENTENCE = `it holds more than ${MAX_JSON_VALUES.toLocaleString("en")} values`;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_ARRAY = 0x5b;
const OPEN_OBJECT = 0x7b;
const CLOSE_ARRAY = 0x5d;
const CLOSE_OBJECT = 0x7d;
const COMMA = 0x2c;

/**
 * Why this JSON text is refused before it is parsed (nested too deeply, too many values), as the end
 * of a sentence, or null. Strings are skipped; the text need not be valid JSON (JSON.parse says so).
 */
export function jsonShapeProblem(text: string): string | null {
  // Neither limit can be passed in fewer characters: the commonest bodies (a tools/list) are not scanned.
  if (text.length <= MAX_JSON_DEPTH) return null;
  let depth = 0;
  // Containers and the commas between values: at least the values, less one per container.
  let values = 0;
  const length = text.length;
  for (let i = 0; i < length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      for (i++; i < length; i++) {
        const s = text.charCodeAt(i);
        if (s === BACKSLASH) i++;
        else if (s === QUOTE) break;
      }
    } else if (c === OPEN_ARRAY || c === OPEN_OBJECT) {
      if (++depth > MAX_JSON_DEPTH) return DEPTH_SENTENCE;
      if (++values > MAX_JSON_VALUES) return VALUES_SENTENCE;
    } else if (c === CLOSE_ARRAY || c === CLOSE_OBJECT) {
      depth--;
    } else if (c === COMMA && ++values > MAX_JSON_VALUES) {
      return VALUES_SENTENCE;
    }
  }
  return null;
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

/** The body's bytes as text (a leading byte order mark dropped, as request.text() does), or null when they are not UTF-8. */
export function decodeUtf8(bytes: Uint8Array): string | null {
  try {
    return utf8.decode(bytes);
  } catch {
    return null;
  }
}

/** The end of a sentence: "The …", "Parse error: …". */
export const NOT_UTF8 = "request body is not valid UTF-8: send text as UTF-8.";

export class PayloadTooLarge extends AppError {
  constructor(limit: number) {
    super(413, "payload_too_large", `The request body is over the limit of ${limit.toLocaleString("en")} bytes.`);
  }
}

/** A JSON body's value, or the 400 / 413 that refuses it (each naming the problem). */
export async function readJsonBody(request: Request): Promise<unknown> {
  const declared = Number(request.headers.get("content-length") ?? Number.NaN);
  if (declared > MAX_JSON_BODY_BYTES) throw new PayloadTooLarge(MAX_JSON_BODY_BYTES);
  const bytes = await request.bytes();
  if (bytes.byteLength > MAX_JSON_BODY_BYTES) throw new PayloadTooLarge(MAX_JSON_BODY_BYTES);
  // No body at all (a chunked empty one): the route answers in its own words, as it did for none.
  if (bytes.byteLength === 0) return null;
  const text = decodeUtf8(bytes);
  if (text === null) throw new Invalid(`The ${NOT_UTF8}`, "invalid_text");
  const shape = jsonShapeProblem(text);
  if (shape) throw new Invalid(`The request body is refused: ${shape}.`, "invalid_json");
  try {
    return JSON.parse(text);
  } catch {
    throw new Invalid("The request body is not valid JSON.", "invalid_json");
  }
}

/**
 * Mounted once in the app: every JSON body is read by readJsonBody instead of Elysia's parser, and no
 * other body is read at all (no route of the app takes a form or text; the session guard answers
 * 415 for them). `readByTheirRoutes`: the paths of the routes that read their own bodies (parse:
 * "none", with these limits or stricter ones: the tool server's door, OAuth's endpoints). A parse
 * hook mounted for all runs on theirs too: it leaves their body unread and tells Elysia so (a value,
 * null: undefined would hand the body to Elysia's own parser, which would read it before the route
 * can).
 */
export function limitJsonBodies(readByTheirRoutes: ReadonlySet<string>) {
  return new Elysia({ name: "limit-json-bodies" }).onParse({ as: "global" }, ({ request, path }, contentType) => {
    // The route's address: Elysia serves "/oauth/token/" on "/oauth/token" (the context has no route
    // name at this step).
    if (readByTheirRoutes.has(path.length > 1 && path.endsWith("/") ? path.replace(/\/+$/, "") : path)) return null;
    // As the session guard reads it: "application/json ; charset=utf-8" and "Application/JSON" too.
    if (contentType.trim().toLowerCase() !== "application/json") return null;
    return readJsonBody(request);
  });
}

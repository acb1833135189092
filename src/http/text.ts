// Text that cannot be stored as sent is refused at the edge, once for every door: a lone UTF-16
// surrogate ("\ud800" in JSON) is stored by SQLite as U+FFFD, so a write would answer with one
// string and keep another; a NUL byte cuts strings short in C libraries and terminals and has no
// place in a name or a text. Applied to every parsed JSON body (keys and string values, at any
// depth) by `refuseUnsafeText` and, for JSON-RPC, by the tool server before the SDK sees a message.
import { Elysia } from "elysia";
import { Invalid, NotFound } from "../errors";

/** Why a string cannot be stored as sent, or null. */
function unsafeTextReason(text: string): string | null {
  if (text.includes("\u0000")) return "contains a NUL character (\\u0000)";
  if (!text.isWellFormed()) return "contains a lone UTF-16 surrogate (an unpaired \\ud800-\\udfff escape), which is not a character";
  return null;
}

/** The first string (or key) in a parsed JSON value that cannot be stored as sent: its path and why. */
export function findUnsafeText(value: unknown): { path: string; reason: string } | null {
  const stack: Array<{ value: unknown; path: string }> = [{ value, path: "" }];
  for (let next = stack.pop(); next; next = stack.pop()) {
    const { value: current, path } = next;
    if (typeof current === "string") {
      const reason = unsafeTextReason(current);
      if (reason) return { path, reason };
    } else if (Array.isArray(current)) {
      for (let i = current.length - 1; i >= 0; i--) stack.push({ value: current[i], path: `${path}[${i}]` });
    } else if (current !== null && typeof current === "object") {
      const entries = Object.entries(current);
      for (let i = entries.length - 1; i >= 0; i--) {
        const [key, child] = entries[i]!;
        const reason = unsafeTextReason(key);
        if (reason) return { path: path ? `${path} (a key)` : "a key", reason };
        stack.push({ value: child, path: path ? `${path}.${key}` : key });
      }
    }
  }
  return null;
}

/** The sentence for a refused value, naming the field. */
export function unsafeTextSentence(found: { path: string; reason: string }): string {
  return `${found.path || "the body"}: ${found.reason}; send text as valid Unicode without NUL characters.`;
}

/**
 * Mounted once in the app: every route's parsed JSON body, and its query parameters, pass
 * `findUnsafeText` or get 400. (A NUL in a CSV export's query reached PostgreSQL, which refuses it:
 * a 500 there, the PostgreSQL walk.)
 */
export function refuseUnsafeText() {
  return new Elysia({ name: "refuse-unsafe-text" }).onBeforeHandle({ as: "global" }, ({ body, query }) => {
    const found = findUnsafeText(body);
    if (found) throw new Invalid(unsafeTextSentence(found), "invalid_text");
    const inQuery = findUnsafeText(query);
    if (inQuery) throw new Invalid(unsafeTextSentence({ ...inQuery, path: `the query parameter ${inQuery.path}` }), "invalid_text");
  });
}

/**
 * Mounted once in the app: a path whose percent-escapes do not decode (`/tools/%ZZ`) names nothing,
 * so it is the 404 of a path that does not exist. Elysia hands such a parameter to the route as null,
 * where a handler expects a string (found by a review: two routes answered 500).
 */
export function refuseUndecodablePaths() {
  return new Elysia({ name: "refuse-undecodable-paths" }).onBeforeHandle({ as: "global" }, ({ params }) => {
    for (const name in params) {
      // A wildcard's rest (the public API's forward) is left to its route, which answers in its own words.
      if (name !== "*" && typeof (params as Record<string, unknown>)[name] !== "string") {
        throw new NotFound("Not found: the path has a percent-escape that does not decode (such as %ZZ).", "not_found");
      }
    }
  });
}

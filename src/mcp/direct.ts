// The two requests that are most of a client's traffic, answered without building an SDK server for
// them: a single tools/list (the same bytes for every key of a plan, serialized once) and a single
// tools/call of a known tool (the catalogue's outcome, as the SDK server would send it). Measured
// (bench/door.ts): building the SDK server and its transport costs little (~10 µs), but the SDK's
// path through them re-serializes the 78 KB listing on every request (~120–220 µs) and re-parses
// the message and the result with zod; this takes tools/list from ~270 µs of CPU a request to a
// few tens.
//
// Only what is fully handled here is answered here: anything else (other methods, batches,
// notifications, an unknown tool, a task-augmented call, headers the SDK's transport would refuse
// or that it alone knows how to read) returns null and goes to the SDK server, which stays the
// protocol's one implementation. The answers are byte for byte what the SDK server sends
// (test/mcp/direct.test.ts compares them).
import { type Principal, type ToolCatalog } from "../catalogue/registry";
import { type AppContext } from "../context";
import { toCallToolResult } from "./results";

type Listing = ReturnType<ToolCatalog["listFor"]>;

const RESULT_OPEN = '{"result":';
const ID_OPEN = ',"jsonrpc":"2.0","id":';

const encoder = new TextEncoder();

/**
 * A plan's tools/list answers: the bytes of `{"result":<listing>,"jsonrpc":"2.0","id":`, made on
 * first use, and the whole answers for the request ids seen (clients number their requests from 0
 * or 1, so a few ids are nearly all of them), at most MAX_ANSWERS_PER_LISTING. Those are kept as
 * Blobs: a Response of a Blob shares its bytes, where one of a Uint8Array copies them (a bare
 * Bun.serve answering the 71 KB listing: 58 µs of CPU a request from a Blob made once, 67 from the
 * Uint8Array; tmp harness, 7 rounds × 10,000 requests, Bun 1.4.5).
 *
 * Any other id (a long-running client's, past the first 64) is written into `scratch`, the prefix
 * followed by room for an id, and answered from a view of it: the Response copies those bytes when
 * it is made (checked: the view changed afterwards, even with a slow reader, leaves the answer as it
 * was), so the one buffer serves every such answer. A new ~100 KB array per answer instead (zeroed,
 * filled, then copied by the Response, and collected) cost ~28 µs of CPU a request more than a bare
 * server answering the same bytes (bench/door.ts, "a new id each request").
 */
interface ListingAnswers {
  /** The prefix's length in bytes: `scratch` starts with it. */
  prefix: number;
  byId: Map<string, Blob>;
  scratch: Uint8Array<ArrayBuffer>;
}

const MAX_ANSWERS_PER_LISTING = 64;
// Clients' ids are small numbers or short strings (a UUID is 38 characters as JSON): longer ones are
// answered without being kept (64 ids of a megabyte each held 130 MB for the life of the process).
const MAX_KEPT_ID_LENGTH = 64;
/** The room after the prefix in `scratch`: an id's JSON and the closing brace, in UTF-8. */
const SCRATCH_ROOM = 1024;
const listingAnswers = new WeakMap<Listing, ListingAnswers>();

/**
 * The bytes of the answer to a tools/list with this id: a kept Blob, or a view of the listing's
 * scratch buffer that is only valid until the next call (make the Response from it at once).
 */
function listingAnswer(listing: Listing, id: string | number): Blob | Uint8Array<ArrayBuffer> {
  let answers = listingAnswers.get(listing);
  if (!answers) {
    const prefix = encoder.encode(`${RESULT_OPEN}${JSON.stringify(listing)}${ID_OPEN}`);
    const scratch = new Uint8Array(prefix.length + SCRATCH_ROOM);
    scratch.set(prefix);
    answers = { prefix: prefix.length, byId: new Map(), scratch };
    listingAnswers.set(listing, answers);
  }
  const idJson = JSON.stringify(id);
  const known = answers.byId.get(idJson);
  if (known) return known;
  const tail = `${idJson}}`;
  const { prefix, scratch } = answers;
  let body: Uint8Array<ArrayBuffer>;
  const { read, written } = encoder.encodeInto(tail, scratch.subarray(prefix));
  if (read === tail.length) body = scratch.subarray(0, prefix + written);
  else {
    // An id too long for the room (a client may send a string of any length).
    const bytes = encoder.encode(tail);
    body = new Uint8Array(prefix + bytes.length);
    body.set(scratch.subarray(0, prefix));
    body.set(bytes, prefix);
  }
  if (answers.byId.size < MAX_ANSWERS_PER_LISTING && idJson.length <= MAX_KEPT_ID_LENGTH) {
    const kept = new Blob([body]);
    answers.byId.set(idJson, kept);
    return kept;
  }
  return body;
}

/** How many whole answers are kept for a plan's listing (tests read it). */
export function keptListingAnswers(listing: Listing): number {
  return listingAnswers.get(listing)?.byId.size ?? 0;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

const JSON_HEADERS = { "content-type": "application/json" };

/**
 * Whether the SDK's transport would take this request as it is: it accepts JSON and an event
 * stream, sends plain application/json, and names a protocol version the SDK supports (or none).
 * Anything else is the SDK's to answer (or refuse) in its own words.
 */
function plainRequest(request: Request, versions: readonly string[]): boolean {
  const accept = request.headers.get("accept");
  if (!accept?.includes("application/json") || !accept.includes("text/event-stream")) return false;
  if (request.headers.get("content-type") !== "application/json") return false;
  const version = request.headers.get("mcp-protocol-version");
  return version === null || versions.includes(version);
}

/** A single JSON-RPC request as the SDK's schema takes it, with only the params keys listed. */
function singleRequest(message: unknown, paramKeys: ReadonlySet<string>): { id: string | number; params: Record<string, unknown> } | null {
  if (!isObject(message) || message.jsonrpc !== "2.0") return null;
  const { id, params } = message;
  if (typeof id !== "string" && !Number.isSafeInteger(id)) return null;
  for (const key in message) if (key !== "jsonrpc" && key !== "id" && key !== "method" && key !== "params") return null;
  if (params === undefined) return { id: id as string | number, params: {} };
  if (!isObject(params)) return null;
  for (const key in params) if (!paramKeys.has(key)) return null;
  if (params._meta !== undefined && !isObject(params._meta)) return null;
  return { id: id as string | number, params };
}

const NO_PARAMS: ReadonlySet<string> = new Set();
const LIST_PARAMS = new Set(["cursor", "_meta"]);
// `task` (task-augmented execution) and anything unexpected are the SDK's.
const CALL_PARAMS = new Set(["name", "arguments", "_meta"]);

function listingResponse(catalog: ToolCatalog, principal: Principal, id: string | number): Response {
  // A Blob made once per plan and id, which the Response shares; any other id, a view of the
  // listing's scratch buffer, which the Response copies as it is made (see listingAnswer).
  return new Response(listingAnswer(catalog.listFor(principal.plan), id), { headers: JSON_HEADERS });
}

/**
 * The answer to a tools/list with no params (or `{}`), the commonest request of all, before any
 * other look at the message: there is nothing in it for checkJsonRpc to refuse (its schema is the
 * SDK's, whose params are all optional), so the route need not run it. Null for anything else.
 */
export function answerPlainListing(
  catalog: ToolCatalog,
  principal: Principal,
  request: Request,
  message: unknown,
  supportedVersions: readonly string[],
): Response | null {
  if (!isObject(message) || message.method !== "tools/list") return null;
  const single = singleRequest(message, NO_PARAMS);
  if (!single || !plainRequest(request, supportedVersions)) return null;
  return listingResponse(catalog, principal, single.id);
}

/**
 * The answer to a single tools/list or tools/call request (already checked by checkJsonRpc), or
 * null to hand the message to the SDK server.
 */
export async function answerDirectly(
  app: AppContext,
  catalog: ToolCatalog,
  principal: Principal,
  requestId: string,
  request: Request,
  message: unknown,
  /** The SDK's SUPPORTED_PROTOCOL_VERSIONS (from the loaded SDK server module). */
  supportedVersions: readonly string[],
): Promise<Response | null> {
  const method = isObject(message) ? message.method : undefined;
  if (method !== "tools/list" && method !== "tools/call") return null;
  if (!plainRequest(request, supportedVersions)) return null;
  if (method === "tools/list") {
    const single = singleRequest(message, LIST_PARAMS);
    if (!single || (single.params.cursor !== undefined && typeof single.params.cursor !== "string")) return null;
    return listingResponse(catalog, principal, single.id);
  }
  const single = singleRequest(message, CALL_PARAMS);
  if (!single) return null;
  const { name, arguments: args } = single.params;
  // An unknown tool is a protocol error, which the SDK server words and sends.
  if (typeof name !== "string" || !catalog.byName.has(name)) return null;
  if (args !== undefined && !isObject(args)) return null;
  const outcome = await catalog.call(app, principal, requestId, name, args);
  const id = JSON.stringify(single.id);
  if (outcome.ok) {
    // toCallToolResult's {content: [{type: "text", text}, ...links], structuredContent: value}, where
    // text is the value's JSON: written around that one serialization instead of serializing the value twice.
    const text = JSON.stringify(outcome.value);
    const links = outcome.links?.length ? `,${outcome.links.map((link) => JSON.stringify(link)).join(",")}` : "";
    return new Response(
      `${RESULT_OPEN}{"content":[{"type":"text","text":${JSON.stringify(text)}}${links}],"structuredContent":${text}}${ID_OPEN}${id}}`,
      { headers: JSON_HEADERS },
    );
  }
  return new Response(`${RESULT_OPEN}${JSON.stringify(toCallToolResult(outcome))}${ID_OPEN}${id}}`, { headers: JSON_HEADERS });
}

// JSON-RPC conventions the SDK leaves to its zod schemas, checked before it sees a message: a
// request whose params do not fit its method is -32602 Invalid params with a sentence (the SDK
// answered -32603 with a raw zod dump), an empty batch is -32600 Invalid Request (the SDK answered
// a bodiless 202), and text that cannot be stored as sent (a lone surrogate, a NUL) is refused here
// for every method, with the same rule as the dashboard's JSON bodies (src/http/text.ts); in a
// tool's arguments it is a tool error, like any invalid input, so that the model can correct it.
import {
  CallToolRequestSchema,
  type CallToolResult,
  CompleteRequestSchema,
  ErrorCode,
  GetPromptRequestSchema,
  InitializeRequestSchema,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  PingRequestSchema,
  ReadResourceRequestSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { findUnsafeText, unsafeTextSentence } from "../http/text";
import { toolFailure } from "./results";

type Id = string | number | null;

type RpcAnswer = { jsonrpc: "2.0"; id: Id } & ({ error: { code: number; message: string } } | { result: CallToolResult });

/** What the route answers instead of handing the message to the SDK. */
export interface Refusal {
  status: number;
  body: RpcAnswer | RpcAnswer[];
}

// Every method this server answers (its capabilities: tools, prompts, resources, completions), with
// the SDK's own schemas, for the problems the sentences below do not name (a cursor that is not a
// string, a _meta that is not an object, a resource's uri that is not a string…).
const REQUEST_SCHEMAS: Record<string, { safeParse(value: unknown): { success: boolean; error?: { issues: ZodIssueLike[] } } }> = {
  initialize: InitializeRequestSchema,
  ping: PingRequestSchema,
  "tools/list": ListToolsRequestSchema,
  "tools/call": CallToolRequestSchema,
  "prompts/list": ListPromptsRequestSchema,
  "prompts/get": GetPromptRequestSchema,
  "resources/list": ListResourcesRequestSchema,
  "resources/templates/list": ListResourceTemplatesRequestSchema,
  "resources/read": ReadResourceRequestSchema,
  "completion/complete": CompleteRequestSchema,
};

interface ZodIssueLike {
  code?: string;
  expected?: string;
  path: readonly PropertyKey[];
  message: string;
}

function schemaProblem(message: Record<string, unknown>): string | null {
  const schema = REQUEST_SCHEMAS[message.method as string];
  const parsed = schema?.safeParse(message);
  const issue = parsed && !parsed.success ? parsed.error?.issues[0] : undefined;
  if (!issue) return null;
  const path = issue.path
    .map((part) => (typeof part === "number" ? `[${part}]` : `.${String(part)}`))
    .join("")
    .replace(/^\./, "");
  const field = path || "the request";
  if (issue.code === "invalid_type" && issue.expected)
    return `${field} must be ${/^[aeiou]/.test(issue.expected) ? "an" : "a"} ${issue.expected}.`;
  return `${field}: ${issue.message.replace(/\.$/, "")}.`;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

const idOf = (message: Record<string, unknown>): Id =>
  typeof message.id === "string" || (typeof message.id === "number" && Number.isFinite(message.id)) ? message.id : null;

/** The problem with a method's params, as a sentence, or null when they fit. */
function paramsProblem(method: unknown, params: unknown): string | null {
  if (params !== undefined && !isObject(params)) return "params must be an object.";
  if (method === "tools/call") {
    if (!isObject(params) || typeof params.name !== "string") {
      return "tools/call needs params.name, the name of a tool as a string (tools/list shows them).";
    }
    if (params.arguments !== undefined && !isObject(params.arguments)) return "params.arguments must be an object of the tool's inputs.";
  }
  if (method === "initialize") {
    const info = isObject(params) ? params.clientInfo : undefined;
    if (
      !isObject(params) ||
      typeof params.protocolVersion !== "string" ||
      !isObject(params.capabilities) ||
      !isObject(info) ||
      typeof info.name !== "string" ||
      typeof info.version !== "string"
    ) {
      return "initialize needs params.protocolVersion (a string), params.capabilities (an object) and params.clientInfo ({name, version}).";
    }
  }
  const unsafe = findUnsafeText(params);
  return unsafe ? unsafeTextSentence({ ...unsafe, path: unsafe.path ? `params.${unsafe.path}` : "params" }) : null;
}

const NOT_A_MESSAGE =
  'Invalid Request: this is JSON but no JSON-RPC 2.0 message (an object with "jsonrpc": "2.0", a "method", for a request an "id" that is a string or an integer, "params" if any, and no other member).';

const MESSAGE_MEMBERS = new Set(["jsonrpc", "id", "method", "params"]);
const RESPONSE_MEMBERS = new Set(["jsonrpc", "id", "result", "error"]);

const NOT_A_RESPONSE =
  'Invalid Request: this is no JSON-RPC 2.0 response (an "id" that is a string or an integer, and either a "result" object or an "error" with an integer "code" and a string "message", and no other member); this server sends no requests, so it expects none.';

const isId = (id: unknown): boolean => typeof id === "string" || Number.isSafeInteger(id);

/**
 * A response as the SDK takes them: an id, and a result object or an error {code, message, data?}.
 * The SDK's transport called any other a -32700 parse error (also for JSON), after giving a result
 * or an error's data to a schema that recurses.
 */
function isResponse(message: Record<string, unknown>): boolean {
  for (const key in message) if (!RESPONSE_MEMBERS.has(key)) return false;
  if (!isId(message.id)) return false;
  if ("result" in message) return !("error" in message) && isObject(message.result);
  const { error } = message;
  return isObject(error) && Number.isSafeInteger(error.code) && typeof error.message === "string";
}

/**
 * JSON that is no JSON-RPC 2.0 message at all: not an object, another version, neither a method nor
 * a result or error, a request or notification with a member besides jsonrpc, id, method and params,
 * a request whose id is neither a string nor an integer (MCP's ids; null included), or a notification
 * whose params are not an object. It is -32600 Invalid Request, with the request's id when it has one
 * (the SDK's transport called each a -32700 parse error with id null, which is for text that is no JSON).
 */
function notAMessage(message: unknown): boolean {
  if (!isObject(message) || message.jsonrpc !== "2.0") return true;
  if (typeof message.method !== "string") return !("result" in message || "error" in message) || !isResponse(message);
  for (const key in message) if (!MESSAGE_MEMBERS.has(key)) return true;
  if ("id" in message) return typeof message.id !== "string" && !Number.isSafeInteger(message.id);
  return message.params !== undefined && !isObject(message.params);
}

/** The answer for one message, or null when the SDK may handle it. */
function messageProblem(message: unknown): RpcAnswer | null {
  if (notAMessage(message)) {
    const response = isObject(message) && typeof message.method !== "string" && ("result" in message || "error" in message);
    return {
      jsonrpc: "2.0",
      id: isObject(message) ? idOf(message) : null,
      error: { code: ErrorCode.InvalidRequest, message: response ? NOT_A_RESPONSE : NOT_A_MESSAGE },
    };
  }
  // Anything but a request (notifications, responses) is left to the SDK.
  if (!isObject(message) || typeof message.method !== "string" || !("id" in message)) return null;
  const params = message.params;
  if (message.method === "tools/call" && isObject(params) && typeof params.name === "string" && isObject(params.arguments)) {
    const unsafe = findUnsafeText(params.arguments);
    // "__proto__", which no tool takes: the SDK's schema for the arguments drops it without a word
    // (the tool ran as if it were not there), where every other unknown field is refused.
    const problem = unsafe
      ? unsafeTextSentence(unsafe)
      : Object.hasOwn(params.arguments, "__proto__")
        ? 'Unknown field "__proto__".'
        : null;
    if (problem)
      return { jsonrpc: "2.0", id: idOf(message), result: toolFailure(`Invalid input for ${params.name.slice(0, 64)}: ${problem}`) };
  }
  const problem = paramsProblem(message.method, params) ?? schemaProblem(message);
  if (problem === null) return null;
  return { jsonrpc: "2.0", id: idOf(message), error: { code: ErrorCode.InvalidParams, message: `Invalid params: ${problem}` } };
}

/** A refusal for a parsed JSON-RPC body, or null to hand it to the SDK. */
export function checkJsonRpc(body: unknown): Refusal | null {
  if (Array.isArray(body)) {
    if (body.length === 0) {
      return {
        status: 400,
        body: { jsonrpc: "2.0", id: null, error: { code: ErrorCode.InvalidRequest, message: "Invalid Request: the batch is empty." } },
      };
    }
    const problems = body.map(messageProblem);
    // Answers are matched to requests by id: the SDK's transport ran both requests of a shared id and
    // answered one.
    const ids = body.flatMap((message) => (isObject(message) && typeof message.method === "string" && "id" in message ? [message.id] : []));
    // A set: a batch of twenty thousand ids compared pairwise held the thread for a third of a second.
    const seen = new Set<unknown>();
    const shared = ids.find((id) => seen.size === seen.add(id).size);
    if (shared !== undefined) {
      return {
        status: 400,
        body: {
          jsonrpc: "2.0",
          id: null,
          error: {
            code: ErrorCode.InvalidRequest,
            message: `Invalid Request: two requests of the batch have the id ${JSON.stringify(shared)}; each request needs an id of its own, and none was run.`,
          },
        },
      };
    }
    if (problems.every((problem) => problem === null)) return null;
    // A batch is run whole or not at all: the valid messages are answered as not run.
    return {
      status: 200,
      body: body.map(
        (message, i) =>
          problems[i] ?? {
            jsonrpc: "2.0" as const,
            id: isObject(message) ? idOf(message) : null,
            error: { code: ErrorCode.InvalidRequest, message: "Not run: another message of this batch is invalid." },
          },
      ),
    };
  }
  const problem = messageProblem(body);
  if (problem === null) return null;
  // A body that is no message at all is the client's mistake at the HTTP level too.
  return { status: notAMessage(body) ? 400 : 200, body: problem };
}

// Whether a handler's result already is what parsing it through the tool's output schema would
// return, checked without building anything. Every call's result goes through the output schema,
// which drops a field a handler returned by mistake and refuses a wrong type (registry.ts). But the
// parse copies every object and array of the result, and allocates zod's bookkeeping for every
// field: measured in the server (bench/door-threads.ts CALL=list_prompts, Bun 1.4.5), list_prompts
// spent ~30 µs of its ~145 µs of CPU a request there, garbage collection included, for 50 prompts
// that matched their schema exactly. A result the check passes is used as it is; any other is
// parsed as before, so that what leaves the catalogue is the same either way.
//
// The check covers the kinds the output schemas use (objects, arrays, strings, numbers with or
// without the safe-integer check, booleans, enums, literals, nullable and optional fields); a schema
// with anything else (a union, a default, a transform, a refinement, a format such as z.email()) gets
// no check and is always parsed. It passes only a value that zod would return unchanged: plain
// objects whose keys are the shape's own, in the shape's order (zod writes them in that order), none
// undefined, every required one present; plain arrays; neither with a toJSON of its own; and values
// of the declared types. (A getter or a Proxy could still answer the check and the JSON differently:
// handlers build their results from rows and literals.) The suite checks that claim on
// every call it makes (`verifyConformance`, test/support/preload.ts).
import { type z } from "zod";

type Check = (value: unknown) => boolean;

// zod's definitions (zod/v4/core): only the members read here.
interface Def {
  type: string;
  checks?: Array<{ _zod: { def: { check: string; format?: string } } }>;
  /** z.int(), z.email()…: a format of the schema itself, without a check. */
  format?: string;
  coerce?: boolean;
  shape?: Record<string, Schema>;
  element?: Schema;
  innerType?: Schema;
}
interface Schema {
  /** `values`: the values an enum or a literal takes, as zod checks them. */
  _zod: { def: Def; values?: ReadonlySet<unknown> };
}

// A plain object or array, without a toJSON of its own: JSON.stringify writes what the check walked.
const isPlainObject = (value: unknown): value is Record<string, unknown> => {
  if (typeof value !== "object" || value === null) return false;
  const prototype = Object.getPrototypeOf(value);
  return (prototype === Object.prototype || prototype === null) && !("toJSON" in value);
};
const isPlainArray = (value: unknown): value is unknown[] =>
  Array.isArray(value) && Object.getPrototypeOf(value) === Array.prototype && !Object.hasOwn(value, "toJSON");

function numberCheck(def: Def): Check | null {
  if (def.coerce) return null;
  let integer = def.format === "safeint";
  if (def.format !== undefined && !integer) return null;
  for (const check of def.checks ?? []) {
    const { check: kind, format } = check._zod.def;
    if (kind === "number_format" && format === "safeint") integer = true;
    else return null;
  }
  // z.number() refuses NaN and the infinities.
  return integer ? (value) => Number.isSafeInteger(value) : (value) => typeof value === "number" && Number.isFinite(value);
}

function objectCheck(shape: Record<string, Schema>): Check | null {
  const keys = Object.keys(shape);
  const fields: Array<{ key: string; check: Check; optional: boolean }> = [];
  for (const key of keys) {
    const schema = shape[key] as Schema;
    const optional = schema._zod.def.type === "optional";
    const check = compile(optional ? (schema._zod.def.innerType as Schema) : schema);
    if (!check) return null;
    fields.push({ key, check, optional });
  }
  return (value) => {
    if (!isPlainObject(value)) return false;
    // The value's keys walked beside the shape's: each must be the next field present, in order.
    let field = 0;
    for (const key in value) {
      if (!Object.hasOwn(value, key)) return false;
      while (field < fields.length && fields[field]?.key !== key) {
        if (!fields[field]?.optional) return false;
        field++;
      }
      const declared = fields[field];
      if (!declared) return false;
      const item = value[key];
      if (item === undefined || !declared.check(item)) return false;
      field++;
    }
    for (; field < fields.length; field++) if (!fields[field]?.optional) return false;
    return true;
  };
}

function compile(schema: Schema): Check | null {
  const def = schema._zod.def;
  switch (def.type) {
    case "string":
      return def.coerce || def.format !== undefined || def.checks?.length ? null : (value) => typeof value === "string";
    case "number":
      return numberCheck(def);
    case "boolean":
      return def.coerce ? null : (value) => typeof value === "boolean";
    case "enum":
    case "literal": {
      const allowed = schema._zod.values;
      return allowed && !def.checks?.length ? (value) => allowed.has(value) : null;
    }
    case "nullable": {
      const inner = compile(def.innerType as Schema);
      return inner && ((value) => value === null || inner(value));
    }
    case "array": {
      if (def.checks?.length) return null;
      const element = compile(def.element as Schema);
      return (
        element &&
        ((value) => {
          if (!isPlainArray(value)) return false;
          for (let i = 0; i < value.length; i++) if (!element(value[i])) return false;
          return true;
        })
      );
    }
    case "object":
      return def.checks?.length ? null : objectCheck(def.shape ?? {});
    default:
      return null;
  }
}

const checks = new WeakMap<z.ZodObject, Check | null>();
let verifying = false;

function checkOf(schema: z.ZodObject): Check | null {
  let check = checks.get(schema);
  if (check === undefined) {
    check = compile(schema as unknown as Schema);
    checks.set(schema, check);
  }
  return check;
}

/** Whether results of this output schema can pass without a parse (it has only kinds the check knows; tests read it). */
export function hasConformanceCheck(schema: z.ZodObject): boolean {
  return checkOf(schema) !== null;
}

/** The suite's check of this module: every result passed as it is is also parsed, and must come out equal. */
export function verifyConformance(on: boolean): void {
  verifying = on;
}

/**
 * The handler's result as the output schema would parse it: the result itself when it already is
 * exactly that, else `schema.parse(result)` (which strips unknown fields and throws on a wrong type).
 */
export function conformingOutput<O extends z.ZodObject>(schema: O, result: unknown): z.output<O> {
  if (!checkOf(schema)?.(result)) return schema.parse(result);
  if (verifying) {
    const parsed = schema.parse(result);
    if (JSON.stringify(parsed) !== JSON.stringify(result) || !Bun.deepEquals(parsed, result, true))
      throw new Error("conformance: a result passed as it is differs from its parse");
  }
  return result as z.output<O>;
}

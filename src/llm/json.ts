/** Lenient readers for provider JSON: compatible servers vary, so a missing field is a null, not a crash. */
export type JsonObject = Record<string, unknown>;

export function asObject(value: unknown): JsonObject | null {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as JsonObject) : null;
}

export function asArray(value: unknown): unknown[] {
  return Array.isArray(value) ? value : [];
}

export function asString(value: unknown): string | null {
  return typeof value === "string" ? value : null;
}

export function asCount(value: unknown): number | null {
  return typeof value === "number" && Number.isFinite(value) && value >= 0 ? value : null;
}

/** The `error.message` (or `message`, or a string `error`) most providers put in error bodies. */
export function providerErrorMessage(body: unknown): string | null {
  const root = asObject(body);
  if (!root) return null;
  const error = root.error;
  if (typeof error === "string") return error;
  return asString(asObject(error)?.message) ?? asString(root.message) ?? asString(root.detail);
}

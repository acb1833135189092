// The one small set of error classes, mapped in one place to HTTP statuses (src/http/observability.ts)
// and, through the catalogue, to MCP tool errors (src/mcp/results.ts). A message is a sentence a user
// can act on; `code` is stable.
export class AppError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = new.target.name;
  }
}

export class NotFound extends AppError {
  constructor(message = "Not found", code = "not_found") {
    super(404, code, message);
  }
}

export class Invalid extends AppError {
  constructor(message: string, code = "invalid_input") {
    super(400, code, message);
  }
}

export class Unauthorized extends AppError {
  constructor(message = "Unauthorized", code = "unauthorized") {
    super(401, code, message);
  }
}

export class Forbidden extends AppError {
  constructor(message = "Forbidden", code = "forbidden") {
    super(403, code, message);
  }
}

/** The account's plan does not cover the request; `requiredPlan` is the lowest plan that does. */
export class PlanRequired extends AppError {
  constructor(
    readonly requiredPlan: "visibility" | "autopilot",
    message: string,
  ) {
    super(403, "plan_required", message);
  }
}

export class Conflict extends AppError {
  constructor(message: string, code = "conflict") {
    super(409, code, message);
  }
}

export class TooManyRequests extends AppError {
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
    code = "rate_limited",
  ) {
    super(429, code, message);
  }
}

export class MethodNotAllowed extends AppError {
  constructor(readonly allow: string) {
    super(405, "method_not_allowed", `This address answers only ${allow}.`);
  }
}

/** A route's answer to the methods it does not serve: 405 with Allow (mount it before any guard). */
export function methodNotAllowed(allow: string): () => never {
  return () => {
    throw new MethodNotAllowed(allow);
  };
}

/** A part of the server that the request needs cannot work right now; the client may retry (after `retryAfterSeconds`, when given: Retry-After). */
export class Unavailable extends AppError {
  constructor(
    message: string,
    code = "unavailable",
    readonly retryAfterSeconds?: number,
  ) {
    super(503, code, message);
  }
}

export interface ErrorBody {
  error: string;
  code: string;
  /** With code plan_required: the lowest plan that covers the request. */
  required_plan?: PlanRequired["requiredPlan"];
}

export function errorBody(error: AppError): ErrorBody {
  if (error instanceof PlanRequired) return { error: error.message, code: error.code, required_plan: error.requiredPlan };
  return { error: error.message, code: error.code };
}

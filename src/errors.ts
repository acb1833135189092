// The one small set of error classes, mapped in one place to HTTP statuses (toHttpError) and to
// MCP tool errors (src/mcp). A message is a sentence a user can act on; `code` is stable.
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

export type PaidPlan = "visibility" | "autopilot";

export class PlanRequired extends AppError {
  constructor(
    readonly requiredPlan: PaidPlan,
    message?: string,
  ) {
    super(
      403,
      "plan_required",
      message ??
        `This requires the ${planLabel(requiredPlan)} plan or higher; upgrade the account's plan to use it: ${planChangeHint(requiredPlan)}.`,
    );
  }
}

export class Conflict extends AppError {
  constructor(message: string, code = "conflict") {
    super(409, code, message);
  }
}

export class TooLarge extends AppError {
  constructor(message = "The request body is too large.", code = "payload_too_large") {
    super(413, code, message);
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

/** A part of the server that the request needs cannot work right now; the client may retry. */
export class Unavailable extends AppError {
  constructor(message: string, code = "unavailable") {
    super(503, code, message);
  }
}

/**
 * How to change an account's plan, for error sentences: the CLI command (the dashboard has no page for
 * it yet). Without the email (answers to a key's holder), `E` stands for it and says so.
 */
export function planChangeHint(plan: PaidPlan, email?: string): string {
  return email === undefined
    ? `spyglass account plan --email E --plan ${plan} (E: the account's email)`
    : `spyglass account plan --email ${email} --plan ${plan}`;
}

export function planLabel(plan: PaidPlan): string {
  return plan === "autopilot" ? "Autopilot" : "Visibility";
}

export interface ErrorBody {
  error: string;
  code: string;
}

export function errorBody(error: AppError): ErrorBody {
  return { error: error.message, code: error.code };
}

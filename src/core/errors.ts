// Tool errors are instructions for an agent: what went wrong and which call to make instead.
// Codes are stable; clients and tests match on them, never on the text.

export type ErrorCode =
  | "invalid_argument"
  | "invalid_path"
  | "not_found"
  | "unknown_vault"
  | "conflict"
  | "too_large"
  | "unsupported"
  | "forbidden"
  | "read_only"
  | "unavailable"
  | "invalid_query"
  | "internal";

/** `not_applied`: nothing was written. `unknown`: writing had started when it failed. */
export type ErrorState = "not_applied" | "unknown";
/** `correct_request`: fix the arguments and call again. `inspect_state`: read first, then decide. */
export type RetryAdvice = "correct_request" | "inspect_state";

export interface ToolErrorInfo {
  code: ErrorCode;
  state: ErrorState;
  retry: RetryAdvice;
  details?: Record<string, unknown>;
}

export class ToolError extends Error {
  readonly code: ErrorCode;
  readonly state: ErrorState;
  readonly retry: RetryAdvice;
  readonly details: Record<string, unknown> | undefined;

  constructor(code: ErrorCode, message: string, options: Partial<Omit<ToolErrorInfo, "code">> = {}) {
    super(message);
    this.name = "ToolError";
    this.code = code;
    this.state = options.state ?? "not_applied";
    this.retry = options.retry ?? (code === "conflict" || code === "internal" ? "inspect_state" : "correct_request");
    this.details = options.details;
  }

  toInfo(): ToolErrorInfo {
    const info: ToolErrorInfo = { code: this.code, state: this.state, retry: this.retry };
    if (this.details) info.details = this.details;
    return info;
  }
}

export function isToolError(value: unknown): value is ToolError {
  return value instanceof ToolError;
}

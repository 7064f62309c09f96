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

/** Where a full disk was met: the vault's device, or the device of the server's own data folder. */
export type SpaceLocation = "vault" | "data folder";

/** A full disk: ENOSPC, or EDQUOT (a quota is full for whoever hits it). */
export function isNoSpace(error: unknown): boolean {
  const code = typeof error === "object" && error !== null ? (error as { code?: unknown }).code : undefined;
  return code === "ENOSPC" || code === "EDQUOT";
}

export function noSpaceText(where: SpaceLocation): string {
  return `no space left on the device that holds the ${where}`;
}

/** For a write that failed on a full disk before anything of it took effect. */
export function noSpaceError(where: SpaceLocation): ToolError {
  return new ToolError("internal", `No space left on the device that holds the ${where}; nothing was written. Free some space there (or ask the user to), then call again.`, {
    state: "not_applied",
    retry: "inspect_state",
    details: { cause: "no_space" },
  });
}

// An absolute path (POSIX, Windows or a file: URL) where a relative path, a word or a URL cannot
// start: after a letter, digit, dot, colon, slash or dash a `/` belongs to something else.
const HOST_PATH = /\bfile:\/\/[^\s'"`()<>,;]*|(?<![\w.:/\\-])\/(?!\/)[^\s'"`()<>,;]+|\b[A-Za-z]:\\[^\s'"`()<>,;]*/g;

/** `text` with every absolute path replaced by `…`: messages of the host's errors name its folders. */
export function withoutHostPaths(text: string): string {
  return text.replace(HOST_PATH, "…");
}

/**
 * What a failure may say about itself in a tool error or a log line: a ToolError's own text (it names
 * vault paths only); of any other error its message with the host's paths taken out.
 */
export function describeFailure(error: unknown): string {
  if (error instanceof ToolError) return error.message;
  return withoutHostPaths(error instanceof Error ? error.message : String(error));
}

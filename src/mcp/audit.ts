// One JSON line per tool call (SPEC §11). Only the vault, the path and the dry-run flag are taken
// from the arguments; every other argument may be note text or a query, so at most its length is
// recorded. A failure is logged as its code, the name of the argument at fault and the host's error
// code (EACCES, …), never as its text: messages quote what the caller sent (SPEC §15).
import type { ToolError } from "../core/errors";
import type { Logger, LogLevel, LogRecord } from "../core/ports";
import type { ToolResult } from "../tools/types";

export interface ToolCallRecord {
  tool: string;
  user: string;
  /** The tool's declared argument names (none for an unknown tool): the only names a line may carry. */
  declared?: readonly string[];
  /** The arguments as parsed, or as sent when parsing failed. */
  args: unknown;
  result?: ToolResult;
  error?: ToolError;
  /** The argument the error is about as a JSON path, when known; only a declared name is logged. */
  argument?: string | undefined;
  startedAt: number;
  finishedAt: number;
  bytes: number;
}

const MAX_LOGGED_NAME = 256;

function argumentMap(args: unknown): Record<string, unknown> {
  return typeof args === "object" && args !== null && !Array.isArray(args) ? (args as Record<string, unknown>) : {};
}

function loggedName(value: unknown): string | undefined {
  return typeof value === "string" && value !== "" ? value.slice(0, MAX_LOGGED_NAME) : undefined;
}

/** A vault path as sent; one that is absolute is no vault path and may name the host's folders. */
function loggedPath(value: unknown): string | undefined {
  const path = loggedName(value);
  return path === undefined || /^\s*(?:[\\/]|[A-Za-z]:)/.test(path) ? undefined : path;
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/**
 * The declared argument an error is about: one its message names in quotes ("count", `glob`), else
 * one the call passed that the message names as a word ("The query has …").
 */
export function argumentAtFault(message: string, declared: readonly string[], passed: Record<string, unknown>): string | undefined {
  const quoted = declared.find((name) => new RegExp(`["\`]${escapeRegExp(name)}["\`]`).test(message));
  if (quoted !== undefined) return quoted;
  return declared.find((name) => Object.hasOwn(passed, name) && new RegExp(`(?<![\\w-])${escapeRegExp(name)}(?![\\w-])`).test(message));
}

/** The declared argument a JSON path (`tags[2]`, `where.status`) starts with; an unknown name is the caller's text. */
function declaredName(path: string, declared: readonly string[]): string | undefined {
  const name = /^[^.[]+/.exec(path)?.[0];
  return name !== undefined && declared.includes(name) ? name : undefined;
}

function hostCause(error: ToolError): string | undefined {
  const cause = error.details?.cause;
  return typeof cause === "string" && /^E[A-Z0-9]+$/.test(cause) ? cause : undefined;
}

function resultCount(result: ToolResult | undefined): number | undefined {
  if (!result) return undefined;
  for (const key of ["returned", "total"]) {
    const value = result[key];
    if (typeof value === "number") return value;
  }
  const list = Object.values(result).find((value) => Array.isArray(value));
  return Array.isArray(list) ? list.length : undefined;
}

function levelOf(error: ToolError | undefined): LogLevel {
  if (!error) return "info";
  return error.code === "internal" ? "error" : "warn";
}

export function toolCallLine(call: ToolCallRecord): LogRecord {
  const args = argumentMap(call.args);
  const line: LogRecord = { ts: call.startedAt, level: levelOf(call.error), event: "tool_call", tool: call.tool, user: call.user };
  const vault = loggedName(args.vault) ?? loggedName(call.result?.vault);
  if (vault !== undefined) line.vault = vault;
  const path = loggedPath(args.path);
  if (path !== undefined) line.path = path;
  if (typeof args.dry_run === "boolean") line.dry_run = args.dry_run;
  if (typeof args.query === "string") line.query_chars = args.query.length;
  line.duration_ms = Math.max(0, call.finishedAt - call.startedAt);
  const count = resultCount(call.result);
  if (count !== undefined) line.count = count;
  line.bytes = call.bytes;
  if (call.error) {
    line.error = call.error.code;
    const argument = call.argument !== undefined ? declaredName(call.argument, call.declared ?? []) : argumentAtFault(call.error.message, call.declared ?? [], args);
    if (argument !== undefined) line.argument = argument;
    const cause = hostCause(call.error);
    if (cause !== undefined) line.cause = cause;
  }
  return line;
}

export function auditToolCall(logger: Logger, call: ToolCallRecord): void {
  logger.log(toolCallLine(call));
}

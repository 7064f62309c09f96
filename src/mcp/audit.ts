// One JSON line per tool call (SPEC §11). Only the vault, the path and the dry-run flag are taken
// from the arguments; every other argument may be note text, so at most its length is recorded,
// and error messages have argument values masked before they are logged.
import type { ToolError } from "../core/errors";
import type { Logger, LogLevel, LogRecord } from "../core/ports";
import type { ToolResult } from "../tools/types";

export interface ToolCallRecord {
  tool: string;
  user: string;
  /** The arguments as parsed, or as sent when parsing failed. */
  args: unknown;
  result?: ToolResult;
  error?: ToolError;
  startedAt: number;
  finishedAt: number;
  bytes: number;
}

const MAX_LOGGED_NAME = 256;
// Masking very short values would garble the message and hides nothing worth hiding.
const MIN_MASKED_LENGTH = 4;
const MASK = "…";
const LOGGED_KEYS = new Set(["vault", "path"]);

function argumentMap(args: unknown): Record<string, unknown> {
  return typeof args === "object" && args !== null && !Array.isArray(args) ? (args as Record<string, unknown>) : {};
}

function loggedName(value: unknown): string | undefined {
  return typeof value === "string" && value !== "" ? value.slice(0, MAX_LOGGED_NAME) : undefined;
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

function stringLeaves(value: unknown, out: string[]): string[] {
  if (typeof value === "string") out.push(value);
  else if (Array.isArray(value)) value.forEach((item) => stringLeaves(item, out));
  else if (typeof value === "object" && value !== null) Object.values(value).forEach((item) => stringLeaves(item, out));
  return out;
}

/** The forms in which an argument value can show up in an error message. */
function valueForms(value: string): string[] {
  const quotedPrefix = JSON.stringify(value.slice(0, 60));
  return [value, value.trim(), quotedPrefix, quotedPrefix.slice(1, -1)].filter((form) => form.length >= MIN_MASKED_LENGTH);
}

/** `text` with every argument value except the vault and the path masked. */
export function maskArgumentValues(text: string, args: unknown): string {
  const values = Object.entries(argumentMap(args))
    .filter(([key]) => !LOGGED_KEYS.has(key))
    .flatMap(([, value]) => stringLeaves(value, []))
    .flatMap(valueForms)
    .sort((a, b) => b.length - a.length);
  return values.reduce((masked, value) => masked.split(value).join(MASK), text);
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
  const path = loggedName(args.path);
  if (path !== undefined) line.path = path;
  if (typeof args.dry_run === "boolean") line.dry_run = args.dry_run;
  if (typeof args.query === "string") line.query_chars = args.query.length;
  line.duration_ms = Math.max(0, call.finishedAt - call.startedAt);
  const count = resultCount(call.result);
  if (count !== undefined) line.count = count;
  line.bytes = call.bytes;
  if (call.error) line.error = `${call.error.code}: ${maskArgumentValues(call.error.message, call.args)}`;
  return line;
}

export function auditToolCall(logger: Logger, call: ToolCallRecord): void {
  logger.log(toolCallLine(call));
}

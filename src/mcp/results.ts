// Tool outcomes as MCP results (SPEC §4): the same object as indented JSON text and as
// structuredContent; a tool error is a normal result with isError and an instruction to the agent,
// whose text is in structuredContent too: some clients hand their model only structuredContent.
import { ProtocolErrorCode as ErrorCode, type CallToolResult } from "@modelcontextprotocol/server";
import { isToolError, ToolError } from "../core/errors";
import type { ImageBlock, ToolResult } from "../tools/types";
import { encodeResult } from "./truncate";

/** MCP's code for a resource that does not exist; the SDK sends it as -32602, as 2026-07-28 requires. */
export const RESOURCE_NOT_FOUND = -32002;

const RESERVED_ERROR_KEYS = new Set(["code", "message", "state", "retry", "argument"]);

export interface EncodedResult {
  result: CallToolResult;
  /** The text the agent reads; the audit log records its UTF-8 size. */
  text: string;
}

export function successResult(value: ToolResult, images: readonly ImageBlock[] = []): EncodedResult {
  const text = encodeResult(value);
  const pictures = images.map((image) => ({ type: "image" as const, data: image.data, mimeType: image.mimeType }));
  return { result: { content: [{ type: "text", text }, ...pictures], structuredContent: value }, text };
}

/** The argument an error is about, as a JSON path (`limit`, `tags[2]`), when the error names one itself. */
export function namedArgument(error: ToolError): string | undefined {
  const argument = error.details?.argument;
  return typeof argument === "string" && argument !== "" ? argument : undefined;
}

/**
 * `argument` is the argument at fault (see namedArgument); the message is the one the text carries,
 * so a client showing either tells the same.
 */
export function errorResult(error: ToolError, argument: string | undefined = namedArgument(error)): EncodedResult {
  const details = Object.entries(error.details ?? {}).filter(([key]) => !RESERVED_ERROR_KEYS.has(key));
  const structured = {
    error: {
      code: error.code,
      message: error.message,
      state: error.state,
      retry: error.retry,
      ...(argument === undefined ? {} : { argument }),
      ...Object.fromEntries(details),
    },
  };
  return {
    result: { isError: true, content: [{ type: "text", text: error.message }], structuredContent: structured },
    text: error.message,
  };
}

/** What an agent is told about a failure nobody anticipated; the details stay in the server log. */
export function internalToolError(): ToolError {
  return new ToolError(
    "internal",
    "The tool failed with an internal error. It may have changed something before failing: read the affected note(s) again before retrying.",
    { state: "unknown", retry: "inspect_state" },
  );
}

/**
 * A JSON-RPC error for the SDK to send as it is. (The SDK's McpError would prefix its message with
 * "MCP error <code>:", and the client prefixes it once more.)
 */
export class ProtocolError extends Error {
  readonly code: number;
  readonly data: unknown;

  constructor(code: number, message: string, data?: unknown) {
    super(message);
    this.name = "ProtocolError";
    this.code = code;
    this.data = data;
  }
}

/** A ToolError thrown while serving resources or prompts, as a JSON-RPC error. */
export function protocolError(error: unknown): ProtocolError {
  if (error instanceof ProtocolError) return error;
  if (!isToolError(error)) return new ProtocolError(ErrorCode.InternalError, "Internal error; see the server log.");
  const code = error.code === "not_found" ? RESOURCE_NOT_FOUND : ErrorCode.InvalidParams;
  return new ProtocolError(code, error.message, { code: error.code });
}

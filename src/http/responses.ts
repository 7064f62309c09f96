// Every answer the HTTP layer writes itself; the MCP transport writes the rest.
import type { ServerResponse } from "node:http";

export type Headers = Record<string, string>;

/** JSON-RPC error codes for failures that happen before a message reaches the MCP server. */
export const JSONRPC_PARSE_ERROR = -32700;
export const JSONRPC_INVALID_REQUEST = -32600;
export const JSONRPC_INTERNAL_ERROR = -32603;
export const JSONRPC_SERVER_ERROR = -32000;

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Headers = {}): void {
  const text = JSON.stringify(body);
  res.writeHead(status, {
    ...headers,
    "Content-Type": "application/json; charset=utf-8",
    "Content-Length": String(Buffer.byteLength(text)),
  });
  res.end(text);
}

export function sendJsonRpcError(res: ServerResponse, status: number, code: number, message: string, headers: Headers = {}): void {
  sendJson(res, status, { jsonrpc: "2.0", error: { code, message }, id: null }, headers);
}

export function sendEmpty(res: ServerResponse, status: number, headers: Headers = {}): void {
  res.writeHead(status, headers);
  res.end();
}

export function sendMethodNotAllowed(res: ServerResponse, allow: string): void {
  sendJsonRpcError(res, 405, JSONRPC_SERVER_ERROR, `Method not allowed; use ${allow}.`, { Allow: allow });
}

export function sendForbidden(res: ServerResponse, message: string): void {
  sendJsonRpcError(res, 403, JSONRPC_SERVER_ERROR, `Forbidden: ${message}`);
}

// RFC 9728 protected-resource metadata. `resource` must be the URL the client used (127.0.0.1
// and localhost are different resources to a client), so it is built from the request's Host.
import type { IncomingMessage } from "node:http";

export const MCP_PATH = "/mcp";
export const RESOURCE_METADATA_PATH = "/.well-known/oauth-protected-resource";
export const RESOURCE_NAME = "Second Brain MCP";

export interface ProtectedResourceMetadata {
  resource: string;
  bearer_methods_supported: string[];
  resource_name: string;
}

/** `http://<Host>` of this request; the server speaks plain HTTP (a TLS proxy sits in front if any). */
export function requestBase(req: IncomingMessage, fallbackHost: string): string {
  return `http://${req.headers.host ?? fallbackHost}`;
}

export function protectedResourceMetadata(base: string): ProtectedResourceMetadata {
  return { resource: `${base}${MCP_PATH}`, bearer_methods_supported: ["header"], resource_name: RESOURCE_NAME };
}

/** The challenge of a 401; `error` only when a token was sent and refused (RFC 6750 §3). */
export function bearerChallenge(base: string, tokenWasSent: boolean): string {
  const error = tokenWasSent ? 'error="invalid_token", ' : "";
  return `Bearer ${error}resource_metadata="${base}${RESOURCE_METADATA_PATH}"`;
}

/** The token of an `Authorization: Bearer …` header, or undefined. */
export function bearerToken(header: string | undefined): string | undefined {
  const match = header === undefined ? null : /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1];
}

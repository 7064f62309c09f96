// Bearer-token authentication as clients see it. Unless OAuth is configured, nothing here names an
// authorization server or a discovery document: a client that followed one would try to register at
// an endpoint that does not exist and fail without ever showing the user how to connect.

export const MCP_PATH = "/mcp";
export const REALM = "Second Brain MCP";

/**
 * How to connect, for a client that came without a valid token. It is the 401's text and the answer
 * at the OAuth endpoints a client may probe, because mcp-remote shows that answer to the user.
 */
export const TOKEN_HELP =
  "Send the header `Authorization: Bearer <token>` with every request; this server takes bearer tokens and offers no OAuth sign-in. " +
  "In Obsidian: Settings → Second Brain MCP → Users, Add a user (or New token) and copy the token, or press Copy configuration for a ready client snippet. " +
  "Headless server: the token printed at start, SECONDBRAIN_TOKEN, or a user's tokens in the --config file. " +
  'With mcp-remote (Claude Desktop): pass --header "Authorization: Bearer <token>".';

/** The 401's text when OAuth is on: a client may sign in, or still send a pasted token. */
export const OAUTH_HELP =
  "Sign in through the client's OAuth flow (it starts from the resource_metadata URL in the WWW-Authenticate header), " +
  "or send the header `Authorization: Bearer <token>` with a token of a user of this server.";

/**
 * The challenge of a 401; `error` only when a token was sent and refused (RFC 6750 §3), and
 * `resource_metadata` (RFC 9728 §5.1) only when OAuth is on.
 */
export function bearerChallenge(tokenWasSent: boolean, resourceMetadata?: string): string {
  const parts = [`realm="${REALM}"`];
  if (resourceMetadata !== undefined) parts.push(`resource_metadata="${resourceMetadata}"`);
  if (tokenWasSent) parts.push('error="invalid_token"');
  return `Bearer ${parts.join(", ")}`;
}

/** The token of an `Authorization: Bearer …` header, or undefined. */
export function bearerToken(header: string | undefined): string | undefined {
  const match = header === undefined ? null : /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1];
}

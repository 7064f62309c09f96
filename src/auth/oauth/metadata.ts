// OAuth discovery (RFC 9728, RFC 8414). Every URL comes from the configured public URL: a request's
// Host header never decides where a client sends a password or a code.
import type { OAuthMetadata, OAuthProtectedResourceMetadata } from "@modelcontextprotocol/server";

export const PROTECTED_RESOURCE_PATH = "/.well-known/oauth-protected-resource";
export const AUTHORIZATION_SERVER_PATH = "/.well-known/oauth-authorization-server";
export const AUTHORIZE_PATH = "/authorize";
export const TOKEN_PATH = "/token";
export const REGISTER_PATH = "/register";

/** Discovery documents change only with the configuration; clients may keep them five minutes. */
export const METADATA_CACHE_CONTROL = "max-age=300";

/**
 * The public URL without a trailing slash, or a sentence saying what is wrong with it. It must be
 * http(s), without credentials, query or fragment; a path is kept (a server behind a path prefix).
 */
export function publicUrlProblem(text: string): string | null {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return "must be an absolute URL such as https://brain.example.com";
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") return "must start with https:// (or http:// for a loopback address)";
  if (url.username !== "" || url.password !== "") return "must not contain a user name or password";
  if (url.search !== "" || url.hash !== "") return "must not contain a query or fragment";
  return null;
}

export function normalizePublicUrl(text: string): string {
  return text.replace(/\/+$/, "");
}

export interface OAuthEndpoints {
  /** The issuer: the public URL, e.g. https://brain.example.com. */
  issuer: string;
  /** The protected resource: the MCP endpoint's public URL. */
  resource: string;
  authorize: string;
  token: string;
  register: string;
  /** The protected-resource metadata URL a 401 points to (RFC 9728 §5.1). */
  resourceMetadata: string;
}

export function oauthEndpoints(publicUrl: string, mcpPath: string): OAuthEndpoints {
  const base = normalizePublicUrl(publicUrl);
  return {
    issuer: base,
    resource: `${base}${mcpPath}`,
    authorize: `${base}${AUTHORIZE_PATH}`,
    token: `${base}${TOKEN_PATH}`,
    register: `${base}${REGISTER_PATH}`,
    resourceMetadata: `${base}${PROTECTED_RESOURCE_PATH}${mcpPath}`,
  };
}

export function protectedResourceMetadata(endpoints: OAuthEndpoints): OAuthProtectedResourceMetadata {
  return {
    resource: endpoints.resource,
    authorization_servers: [endpoints.issuer],
    bearer_methods_supported: ["header"],
    resource_name: "Second Brain MCP",
  };
}

export function authorizationServerMetadata(endpoints: OAuthEndpoints, options: { clientIdMetadataDocuments?: boolean } = {}): OAuthMetadata {
  const metadata: OAuthMetadata = {
    issuer: endpoints.issuer,
    authorization_endpoint: endpoints.authorize,
    token_endpoint: endpoints.token,
    registration_endpoint: endpoints.register,
    response_types_supported: ["code"],
    grant_types_supported: ["authorization_code", "refresh_token"],
    code_challenge_methods_supported: ["S256"],
    token_endpoint_auth_methods_supported: ["none"],
  };
  if (options.clientIdMetadataDocuments === true) metadata.client_id_metadata_document_supported = true;
  return metadata;
}

// Dynamic client registration (RFC 7591), public clients only: a client proves nothing about itself
// at registration, so what matters is where codes may be sent, and that is checked strictly.
import type { Logger } from "../../core/ports";

export const MAX_CLIENTS = 1000;
export const REGISTRATION_BODY_LIMIT_BYTES = 64 * 1024;
/** Registrations per source address per hour. */
export const REGISTRATIONS_PER_HOUR = 20;
const MAX_REDIRECT_URIS = 20;
const MAX_REDIRECT_URI_LENGTH = 2048;
const MAX_CLIENT_NAME_LENGTH = 200;

export interface ClientRecord {
  client_id: string;
  client_name?: string;
  redirect_uris: string[];
  /** Seconds since the epoch, as RFC 7591 writes it. */
  client_id_issued_at: number;
  /** Milliseconds since the epoch: the least recently used client is dropped first. */
  last_used: number;
}

export interface RegistrationError {
  error: "invalid_redirect_uri" | "invalid_client_metadata";
  error_description: string;
}

export interface ClientMetadata {
  client_name?: string;
  redirect_uris: string[];
}

const LOOPBACK_HOSTS = new Set(["127.0.0.1", "[::1]", "localhost"]);

/**
 * Schemes the browser acts on itself (runs, reads, shows, or sends elsewhere) rather than handing the
 * URI to the application that registered it: a code sent to one would not reach a native client.
 */
const BROWSER_SCHEMES = new Set([
  "about:", "blob:", "chrome:", "chrome-extension:", "data:", "edge:", "file:", "filesystem:", "ftp:", "intent:", "javascript:",
  "mailto:", "moz-extension:", "resource:", "sms:", "tel:", "urn:", "view-source:", "vbscript:", "ws:", "wss:",
]);

/**
 * Why a redirect URI is refused, or null: absolute, no fragment, https unless loopback http, or an
 * application's own scheme (RFC 8252 §7.1, as Cursor's `cursor://anysphere.cursor-mcp/oauth/callback`).
 * An app's scheme is as safe as any registered https callback: the code it carries is bound to the
 * PKCE verifier of the client that asked, and the person signing in is shown the client's name.
 */
export function redirectUriProblem(uri: string): string | null {
  if (uri.length > MAX_REDIRECT_URI_LENGTH) return `is longer than ${MAX_REDIRECT_URI_LENGTH} characters`;
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return "is not an absolute URL";
  }
  if (uri.includes("#")) return "has a fragment (#…), which RFC 6749 §3.1.2 forbids";
  if (url.username !== "" || url.password !== "") return "contains a user name or password";
  if (url.protocol === "https:") return null;
  if (url.protocol === "http:") {
    return LOOPBACK_HOSTS.has(url.hostname) ? null : "must use https, or http on a loopback address (127.0.0.1, [::1] or localhost)";
  }
  if (BROWSER_SCHEMES.has(url.protocol)) {
    return `uses the ${url.protocol.slice(0, -1)} scheme, which the browser handles itself; use https, http on a loopback address (127.0.0.1, [::1] or localhost), or the application's own scheme`;
  }
  return null;
}

function invalid(description: string): RegistrationError {
  return { error: "invalid_client_metadata", error_description: description };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function subsetOf(value: unknown, allowed: readonly string[]): boolean {
  return Array.isArray(value) && value.every((item) => typeof item === "string" && allowed.includes(item));
}

/** The metadata a registration request may set, or the RFC 7591 §3.2.2 error that refuses it. */
export function readClientMetadata(body: unknown): ClientMetadata | RegistrationError {
  if (!isRecord(body)) return invalid("The body must be a JSON object of client metadata (RFC 7591 §2).");
  const uris = body.redirect_uris;
  if (!Array.isArray(uris) || uris.length === 0 || uris.length > MAX_REDIRECT_URIS || !uris.every((uri) => typeof uri === "string")) {
    return { error: "invalid_redirect_uri", error_description: `redirect_uris must be a list of 1 to ${MAX_REDIRECT_URIS} URLs.` };
  }
  for (const [index, uri] of (uris).entries()) {
    const problem = redirectUriProblem(uri);
    if (problem !== null) return { error: "invalid_redirect_uri", error_description: `redirect_uris[${index}] ${problem}.` };
  }
  const method = body.token_endpoint_auth_method;
  if (method !== undefined && method !== "none") {
    return invalid('token_endpoint_auth_method must be "none": this server registers public clients only, which prove themselves with PKCE.');
  }
  if (body.grant_types !== undefined && !subsetOf(body.grant_types, ["authorization_code", "refresh_token"])) {
    return invalid('grant_types may hold only "authorization_code" and "refresh_token".');
  }
  if (body.response_types !== undefined && !subsetOf(body.response_types, ["code"])) return invalid('response_types may hold only "code".');
  const name = body.client_name;
  if (name !== undefined && (typeof name !== "string" || name.length > MAX_CLIENT_NAME_LENGTH)) {
    return invalid(`client_name must be a string of at most ${MAX_CLIENT_NAME_LENGTH} characters.`);
  }
  const metadata: ClientMetadata = { redirect_uris: [...(uris)] };
  if (typeof name === "string" && name.trim() !== "") metadata.client_name = name.trim();
  return metadata;
}

export function isRegistrationError(value: ClientMetadata | RegistrationError): value is RegistrationError {
  return "error" in value;
}

/** The registration response (RFC 7591 §3.2.1). */
export function registrationResponse(client: ClientRecord): Record<string, unknown> {
  const response: Record<string, unknown> = {
    client_id: client.client_id,
    client_id_issued_at: client.client_id_issued_at,
    redirect_uris: client.redirect_uris,
    token_endpoint_auth_method: "none",
    grant_types: ["authorization_code", "refresh_token"],
    response_types: ["code"],
  };
  if (client.client_name !== undefined) response.client_name = client.client_name;
  return response;
}

/**
 * Registered clients, least recently used first (a Map keeps insertion order, and a use moves a
 * client to the end). Above the bound the least recently used client is dropped and logged.
 */
export class ClientTable {
  private readonly clients = new Map<string, ClientRecord>();

  constructor(
    private readonly logger: Logger,
    private readonly limit = MAX_CLIENTS,
  ) {}

  add(client: ClientRecord): void {
    this.clients.set(client.client_id, client);
    while (this.clients.size > this.limit) {
      const oldest = this.clients.values().next().value as ClientRecord;
      this.clients.delete(oldest.client_id);
      this.logger.log({ level: "warn", event: "oauth_client_evicted", client_id: oldest.client_id, reason: "table_full", limit: this.limit });
    }
  }

  get(clientId: string): ClientRecord | undefined {
    return this.clients.get(clientId);
  }

  /** Marks a client used now: it moves to the end of the eviction order. */
  touch(clientId: string, now: number): void {
    const client = this.clients.get(clientId);
    if (!client) return;
    client.last_used = now;
    this.clients.delete(clientId);
    this.clients.set(clientId, client);
  }

  has(clientId: string): boolean {
    return this.clients.has(clientId);
  }

  get size(): number {
    return this.clients.size;
  }

  list(): ClientRecord[] {
    return [...this.clients.values()];
  }

  /** Restores saved clients in their saved order of use. */
  load(clients: readonly ClientRecord[]): void {
    for (const client of [...clients].sort((a, b) => a.last_used - b.last_used)) this.add(client);
  }
}

/** A client's exact redirect URI, compared in constant time against each registered one. */
export function registeredRedirect(client: ClientRecord, uri: string, equal: (a: string, b: string) => boolean): boolean {
  let found = false;
  for (const registered of client.redirect_uris) if (equal(registered, uri)) found = true;
  return found;
}

// The authorization endpoint's checks and page (RFC 6749 §4.1.1, OAuth 2.1 §4.1). Checks run in a
// fixed order before anything is rendered: an unknown client or an unregistered redirect URI gets
// an error page and never a redirect (the URI could be anyone's); after that, errors go back to
// the client at its redirect URI.
import type { Logger } from "../../core/ports";
import { registeredRedirect, type ClientRecord, type ClientTable } from "./clients";
import { HashTable, isS256Challenge } from "./grants";
import type { OAuthCrypto } from "./ports";

export const CSRF_TTL_MS = 10 * 60 * 1000;
export const MAX_PENDING_SIGN_INS = 1000;
/** Sign-in attempts per source address per minute. */
export const LOGIN_ATTEMPTS_PER_MINUTE = 10;
export const INVALID_LOGIN = "Invalid username or password.";

/** What a sign-in is for, checked; the login form carries it only by its CSRF token. */
export interface AuthorizeRequest {
  client_id: string;
  client_name?: string;
  redirect_uri: string;
  code_challenge: string;
  state?: string;
}

export type AuthorizeCheck =
  | { kind: "ok"; request: AuthorizeRequest }
  | { kind: "error_page"; reason: string; message: string }
  | { kind: "redirect_error"; reason: string; location: string };

/** The redirect URI with `params` added to its query (RFC 6749 §4.1.2). */
export function redirectWith(redirectUri: string, params: Readonly<Record<string, string | undefined>>): string {
  const url = new URL(redirectUri);
  for (const [name, value] of Object.entries(params)) if (value !== undefined) url.searchParams.append(name, value);
  return url.toString();
}

export function checkAuthorizeRequest(
  query: Readonly<Record<string, string | undefined>>,
  clients: ClientTable,
  equal: OAuthCrypto["equal"],
  issuer: string,
  resource?: string,
): AuthorizeCheck {
  const clientId = query.client_id;
  const client: ClientRecord | undefined = clientId === undefined ? undefined : clients.get(clientId);
  if (!client) {
    return { kind: "error_page", reason: "client_unknown", message: "This application is not registered with this server (or its registration was dropped). Start the connection again in the application." };
  }
  const redirectUri = query.redirect_uri;
  if (redirectUri === undefined || !registeredRedirect(client, redirectUri, equal)) {
    return { kind: "error_page", reason: "redirect_uri_mismatch", message: "The application asked to return to an address it did not register. Start the connection again in the application." };
  }
  const back = (error: string, description: string, reason: string): AuthorizeCheck => ({
    kind: "redirect_error",
    reason,
    location: redirectWith(redirectUri, { error, error_description: description, state: query.state, iss: issuer }),
  });
  if (query.response_type !== "code") return back("unsupported_response_type", 'Only response_type "code" is supported.', "response_type");
  const challenge = query.code_challenge;
  if (challenge === undefined || query.code_challenge_method !== "S256" || !isS256Challenge(challenge)) {
    return back("invalid_request", "A PKCE code_challenge with code_challenge_method S256 is required.", "pkce_missing");
  }
  // RFC 8707: a client names the server it wants a token for; a token for another one is not ours to give.
  const target = query.resource?.replace(/\/+$/, "");
  if (target !== undefined && resource !== undefined && target !== resource && target !== issuer) {
    return back("invalid_target", `This server issues tokens for ${resource} only.`, "resource_mismatch");
  }
  const request: AuthorizeRequest = { client_id: client.client_id, redirect_uri: redirectUri, code_challenge: challenge };
  if (client.client_name !== undefined) request.client_name = client.client_name;
  if (query.state !== undefined) request.state = query.state;
  return { kind: "ok", request };
}

interface PendingSignIn extends AuthorizeRequest {
  expires_at: number;
}

/**
 * One-time CSRF tokens of login forms, each bound to the checked request it was rendered for.
 * They are kept by hash, like every other secret here.
 */
export class PendingSignIns {
  private readonly table: HashTable<PendingSignIn>;

  constructor(
    private readonly crypto: OAuthCrypto,
    logger: Logger,
    private readonly now: () => number,
  ) {
    this.table = new HashTable("csrf_token", MAX_PENDING_SIGN_INS, logger);
  }

  open(request: AuthorizeRequest): string {
    const now = this.now();
    this.table.prune(now);
    const token = this.crypto.random(32);
    this.table.set(this.crypto.sha256Hex(token), { ...request, expires_at: now + CSRF_TTL_MS });
    return token;
  }

  /** The request a token was issued for, once; null when unknown, spent or expired. */
  take(token: string): AuthorizeRequest | null {
    const pending = this.table.take(this.crypto.sha256Hex(token));
    if (!pending || pending.expires_at <= this.now()) return null;
    const { expires_at: _expired, ...request } = pending;
    return request;
  }

  /** A token for the same request after a failed attempt: the old one is spent. */
  reopen(request: AuthorizeRequest): string {
    return this.open(request);
  }
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => `&#${character.charCodeAt(0)};`);
}

/**
 * What the CSP's form-action must name so the browser follows the redirect after the POST to
 * `redirectUri`: its origin, or for an application's own scheme (which has no origin) the scheme.
 */
export function formTargetOf(redirectUri: string): string {
  const url = new URL(redirectUri);
  return url.protocol === "https:" || url.protocol === "http:" ? url.origin : url.protocol;
}

/** The page headers; `formTarget` (formTargetOf), without which the browser refuses the redirect after the POST. */
export function pageHeaders(nonce: string, formTarget?: string): Record<string, string> {
  const formAction = formTarget === undefined ? "'self'" : `'self' ${formTarget}`;
  return {
    "Content-Type": "text/html; charset=utf-8",
    "Cache-Control": "no-store",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "no-referrer",
    "X-Content-Type-Options": "nosniff",
    "Content-Security-Policy": `default-src 'none'; style-src 'nonce-${nonce}'; frame-ancestors 'none'; base-uri 'none'; form-action ${formAction}`,
  };
}

const STYLE =
  "body{font:16px system-ui,sans-serif;max-width:24rem;margin:4rem auto;padding:0 1rem;color:#222}" +
  "label{display:block;margin:.75rem 0 .25rem}input{width:100%;padding:.5rem;box-sizing:border-box}" +
  "button{margin-top:1rem;padding:.5rem 1rem}.error{color:#b00020}";

export function page(nonce: string, title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${escapeHtml(title)}</title><style nonce="${nonce}">${STYLE}</style></head><body><h1>${escapeHtml(title)}</h1>${body}</body></html>`;
}

export function errorPage(nonce: string, message: string): string {
  return page(nonce, "Cannot sign in", `<p class="error">${escapeHtml(message)}</p>`);
}

/**
 * The form has no action: it posts back to the page's own URL, which is 'self' whatever name the
 * browser used for the server (localhost or 127.0.0.1), where an absolute action could fall outside
 * the CSP's form-action.
 */
export function loginPage(nonce: string, options: { csrf: string; clientName?: string; error?: string; username?: string }): string {
  const who = options.clientName === undefined ? "An application" : `“${escapeHtml(options.clientName)}”`;
  const error = options.error === undefined ? "" : `<p class="error" role="alert">${escapeHtml(options.error)}</p>`;
  return page(
    nonce,
    "Sign in to Second Brain MCP",
    `<p>${who} asks to use your vaults as you.</p>${error}` +
      `<form method="post">` +
      `<input type="hidden" name="csrf_token" value="${escapeHtml(options.csrf)}">` +
      `<label for="username">User name</label><input id="username" name="username" autocomplete="username" required value="${escapeHtml(options.username ?? "")}">` +
      `<label for="password">Password</label><input id="password" name="password" type="password" autocomplete="current-password" required>` +
      `<button type="submit">Sign in</button></form>`,
  );
}

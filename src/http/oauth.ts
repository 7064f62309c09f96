// The OAuth endpoints over HTTP (on only when configured): discovery now; registration, the token
// endpoint and sign-in build on it. The logic lives in src/auth/oauth; this file reads requests and
// writes answers.
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Logger } from "../core/ports";
import {
  AUTHORIZATION_SERVER_PATH,
  authorizationServerMetadata,
  METADATA_CACHE_CONTROL,
  oauthEndpoints,
  PROTECTED_RESOURCE_PATH,
  protectedResourceMetadata,
  AUTHORIZE_PATH,
  REGISTER_PATH,
  TOKEN_PATH,
  type OAuthEndpoints,
} from "../auth/oauth/metadata";
import {
  isRegistrationError,
  readClientMetadata,
  REGISTRATION_BODY_LIMIT_BYTES,
  registrationResponse,
  REGISTRATIONS_PER_HOUR,
} from "../auth/oauth/clients";
import type { OAuthService } from "../auth/oauth/service";
import { isMetadataDocumentUrl, type MetadataDocumentCache } from "../auth/oauth/metadata-document";
import {
  checkAuthorizeRequest,
  errorPage,
  formTargetOf,
  INVALID_LOGIN,
  LOGIN_ATTEMPTS_PER_MINUTE,
  loginPage,
  pageHeaders,
  PendingSignIns,
  redirectWith,
  type AuthorizeRequest,
} from "../auth/oauth/authorize";
import type { UserInfo } from "../tools/types";
import { APPROVAL_STATUS_PATH } from "../auth/oauth/approval";
import { MCP_PATH } from "./bearer";
import { ApprovalRoutes, type ApprovalHost } from "./oauth-approval";
import { parseJson, readBody } from "./body";
import { RateLimiter } from "./rate-limit";
import { sendJson, sendMethodNotAllowed } from "./responses";
import { clientAddress } from "./client-address";

export interface OAuthHttpOptions {
  service: OAuthService;
  /** The user a token acts as, looked up on every request: a removed user's tokens stop working. */
  findUser(name: string): UserInfo | null;
  /** Where clients reach this server (e.g. https://brain.example.com); default the listen address. */
  publicUrl?: string;
  /**
   * Whether a user name and password match. It must cost the same for an unknown user (one hash
   * comparison against a dummy), so the time taken does not tell which names exist. Absent: no
   * password sign-in, and /authorize says so.
   */
  verifyPassword?: (name: string, password: string) => Promise<boolean>;
  /** Whether any user has a password now (users change on reload); default: yes. */
  passwordsConfigured?: () => boolean;
  /** Sign-in by approval in the host's own window instead of a password (the plugin). */
  approval?: ApprovalHost;
  /**
   * Client ID Metadata Documents (headless only, off unless configured): a client_id that is an https
   * URL is resolved by fetching it. `allowLoopbackHttp` is for tests only.
   */
  metadataDocuments?: { cache: MetadataDocumentCache; allowLoopbackHttp?: boolean };
}

const FORM_BODY_LIMIT_BYTES = 64 * 1024;

/** The fields of a form or query; a repeated field makes the whole request invalid (null). */
function singleFields(params: URLSearchParams): Record<string, string> | null {
  const fields: Record<string, string> = {};
  for (const [name, value] of params) {
    if (name in fields) return null;
    fields[name] = value;
  }
  return fields;
}

const TOKEN_BODY_LIMIT_BYTES = 64 * 1024;

/** An OAuth error body (RFC 6749 §5.2, RFC 7591 §3.2.2); the router already sent no-store. */
function sendOAuthError(res: ServerResponse, status: number, error: string, description: string, headers: Record<string, string> = {}): void {
  sendJson(res, status, { error, error_description: description }, headers);
}

export class OAuthRoutes {
  readonly endpoints: OAuthEndpoints;
  private readonly metadata: ReadonlyMap<string, () => unknown>;
  private readonly pending: PendingSignIns;
  private readonly approvals: ApprovalRoutes | undefined;
  private readonly logins = new RateLimiter({ perMinute: LOGIN_ATTEMPTS_PER_MINUTE, burst: LOGIN_ATTEMPTS_PER_MINUTE });
  private readonly registrations = new RateLimiter({ perMinute: REGISTRATIONS_PER_HOUR / 60, burst: REGISTRATIONS_PER_HOUR });

  constructor(
    readonly options: OAuthHttpOptions,
    publicUrl: string,
    private readonly logger: Logger,
  ) {
    this.endpoints = oauthEndpoints(publicUrl, MCP_PATH);
    this.pending = new PendingSignIns(options.service.crypto, logger, () => options.service.now());
    if (options.approval) this.approvals = new ApprovalRoutes(options.approval, options.service, this.endpoints.issuer, logger);
    const resource = protectedResourceMetadata(this.endpoints);
    const server = authorizationServerMetadata(this.endpoints, { clientIdMetadataDocuments: options.metadataDocuments !== undefined });
    // RFC 9728 §3.1 inserts the resource's path after the well-known name; clients written before it
    // ask at the bare name, and some ask for the server metadata with the resource path too.
    this.metadata = new Map<string, () => unknown>([
      [PROTECTED_RESOURCE_PATH, () => resource],
      [`${PROTECTED_RESOURCE_PATH}${MCP_PATH}`, () => resource],
      [AUTHORIZATION_SERVER_PATH, () => server],
      [`${AUTHORIZATION_SERVER_PATH}${MCP_PATH}`, () => server],
    ]);
  }

  /** Answers an OAuth path and returns true, or returns false for any other path. */
  async handle(req: IncomingMessage, res: ServerResponse, path: string): Promise<boolean> {
    const document = this.metadata.get(path);
    if (document) {
      if (req.method !== "GET") sendMethodNotAllowed(res, "GET");
      else sendJson(res, 200, document(), { "Cache-Control": METADATA_CACHE_CONTROL });
      return true;
    }
    if (path === APPROVAL_STATUS_PATH && this.approvals) {
      if (req.method !== "POST") sendMethodNotAllowed(res, "POST");
      else await this.approvals.status(req, res);
      return true;
    }
    if (path === AUTHORIZE_PATH) {
      if (req.method === "GET") await this.authorizePage(req, res);
      else if (req.method === "POST" && this.approvals) await this.approvals.submit(req, res, (name) => this.options.findUser(name));
      else if (req.method === "POST") await this.signIn(req, res);
      else sendMethodNotAllowed(res, "GET, POST");
      return true;
    }
    if (path === TOKEN_PATH) {
      if (req.method !== "POST") sendMethodNotAllowed(res, "POST");
      else await this.token(req, res);
      return true;
    }
    if (path === REGISTER_PATH) {
      if (req.method !== "POST") sendMethodNotAllowed(res, "POST");
      else await this.register(req, res);
      return true;
    }
    return false;
  }

  private sendPage(res: ServerResponse, status: number, html: string, nonce: string, formTarget?: string): void {
    res.writeHead(status, { ...pageHeaders(nonce, formTarget), "Content-Length": String(Buffer.byteLength(html)) });
    res.end(html);
  }

  private sendErrorPage(res: ServerResponse, status: number, message: string): void {
    const nonce = this.options.service.crypto.random(16);
    this.sendPage(res, status, errorPage(nonce, message), nonce);
  }

  private sendLoginForm(res: ServerResponse, status: number, request: AuthorizeRequest, extra: { error?: string; username?: string } = {}): void {
    const nonce = this.options.service.crypto.random(16);
    const csrf = this.pending.open(request);
    const form: Parameters<typeof loginPage>[1] = { csrf, ...extra };
    if (request.client_name !== undefined) form.clientName = request.client_name;
    this.sendPage(res, status, loginPage(nonce, form), nonce, formTargetOf(request.redirect_uri));
  }

  /**
   * A client_id naming a metadata document: fetched (or taken from the cache) and kept in the client
   * table like a registered client, so every later check treats both alike. Null when resolved or
   * not a document URL; else why the document was refused.
   */
  private async resolveDocumentClient(clientId: string | undefined, remote: string): Promise<string | null> {
    const documents = this.options.metadataDocuments;
    if (documents === undefined || clientId === undefined || !isMetadataDocumentUrl(clientId, { allowLoopbackHttp: documents.allowLoopbackHttp === true })) return null;
    const result = await documents.cache.resolve(clientId);
    if (!result.ok) {
      this.logger.log({ level: "warn", event: "client_metadata_document_refused", reason: result.reason, remote });
      return result.description;
    }
    const service = this.options.service;
    const now = service.now();
    const known = service.clients.get(clientId);
    service.clients.add({
      client_id: clientId,
      redirect_uris: result.metadata.redirect_uris,
      ...(result.metadata.client_name !== undefined ? { client_name: result.metadata.client_name } : {}),
      client_id_issued_at: known?.client_id_issued_at ?? Math.floor(now / 1000),
      last_used: now,
    });
    return null;
  }

  private async authorizePage(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const remote = clientAddress(req);
    const query = singleFields(new URL(req.url ?? "/", "http://request.invalid").searchParams);
    if (query === null) return this.sendErrorPage(res, 400, "The sign-in link repeats a parameter. Start the connection again in the application.");
    const documentProblem = await this.resolveDocumentClient(query.client_id, remote);
    if (documentProblem !== null) return this.sendErrorPage(res, 400, `${documentProblem} Start the connection again in the application once its metadata document is fixed.`);
    const check = checkAuthorizeRequest(query, this.options.service.clients, this.options.service.crypto.equal, this.endpoints.issuer, this.endpoints.resource);
    if (check.kind === "error_page") {
      this.logger.log({ level: "warn", event: "authorize_failed", reason: check.reason, remote });
      return this.sendErrorPage(res, 400, check.message);
    }
    if (check.kind === "redirect_error") {
      this.logger.log({ level: "warn", event: "authorize_failed", reason: check.reason, remote });
      res.writeHead(302, { Location: check.location, "Cache-Control": "no-store" });
      res.end();
      return;
    }
    if (this.approvals) return this.approvals.page(res, check.request, remote);
    if (!this.options.verifyPassword || this.options.passwordsConfigured?.() === false) {
      return this.sendErrorPage(res, 503, "No user of this server has a password, so nobody can sign in here. The administrator sets one (password: env:NAME or file:/path) for a user in the server's config file.");
    }
    this.sendLoginForm(res, 200, check.request);
  }

  private async signIn(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const remote = clientAddress(req);
    const body = await readBody(req, FORM_BODY_LIMIT_BYTES);
    const form = body.kind === "ok" ? singleFields(new URLSearchParams(body.text)) : null;
    const request = form?.csrf_token === undefined ? null : this.pending.take(form.csrf_token);
    if (form === null || request === null) {
      this.logger.log({ level: "warn", event: "authorize_failed", reason: "csrf_unknown", remote });
      return this.sendErrorPage(res, 400, "This sign-in form has expired or was already used. Start the connection again in the application.");
    }
    const username = form.username ?? "";
    const verdict = this.logins.take(`ip:${remote}`);
    if (!verdict.allowed) {
      this.logger.log({ level: "warn", event: "authorize_failed", reason: "rate_limited", remote });
      return this.sendLoginForm(res, 429, request, { error: `Too many sign-in attempts; wait ${verdict.retryAfterSeconds} s and try again.`, username });
    }
    const verify = this.options.verifyPassword;
    const matches = verify !== undefined && (await verify(username, form.password ?? ""));
    if (!matches || this.options.findUser(username) === null) {
      this.logger.log({ level: "warn", event: "authorize_failed", reason: "invalid_login", client_id: request.client_id, remote });
      return this.sendLoginForm(res, 401, request, { error: INVALID_LOGIN, username });
    }
    const code = await this.options.service.issueCode({ client_id: request.client_id, user: username, redirect_uri: request.redirect_uri, code_challenge: request.code_challenge });
    this.logger.log({ level: "info", event: "authorize_signed_in", client_id: request.client_id, user: username });
    res.writeHead(302, { Location: redirectWith(request.redirect_uri, { code, state: request.state, iss: this.endpoints.issuer }), "Cache-Control": "no-store" });
    res.end();
  }

  /** The user an OAuth access token acts as, or null. */
  authenticate(token: string): UserInfo | null {
    const grant = this.options.service.authenticate(token);
    return grant === null ? null : this.options.findUser(grant.user);
  }

  private async token(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const remote = clientAddress(req);
    const failed = (error: string, reason: string, description: string, clientId?: string): void => {
      // One line per failure, with a reason a machine can count; never a code, token or verifier,
      // and a client_id only when registered: anything else is whatever the caller typed there.
      const known = clientId !== undefined && this.options.service.clients.has(clientId);
      this.logger.log({ level: "warn", event: "token_failed", reason, error, client_id: known ? clientId : null, remote });
      sendOAuthError(res, error === "invalid_client" ? 401 : 400, error, description, { Pragma: "no-cache" });
    };
    const body = await readBody(req, TOKEN_BODY_LIMIT_BYTES);
    if (body.kind === "too_large") return failed("invalid_request", "body_too_large", `The token request exceeds ${TOKEN_BODY_LIMIT_BYTES} bytes.`);
    const type = (req.headers["content-type"] ?? "").split(";")[0]!.trim().toLowerCase();
    if (type !== "application/x-www-form-urlencoded") {
      return failed("invalid_request", "content_type", "Send the token request as application/x-www-form-urlencoded (RFC 6749 §4.1.3).");
    }
    const form = new URLSearchParams(body.text);
    const fields: Record<string, string> = {};
    for (const [name, value] of form) {
      if (name in fields) return failed("invalid_request", "parameter_repeated", `The parameter ${name} is given more than once (RFC 6749 §3.2).`);
      fields[name] = value;
    }
    const documentProblem = await this.resolveDocumentClient(fields.client_id, remote);
    if (documentProblem !== null) return failed("invalid_client", "client_metadata_document", documentProblem);
    const outcome = await this.options.service.exchange(fields, (name) => this.options.findUser(name) !== null);
    if (!outcome.ok) return failed(outcome.failure.error, outcome.failure.reason, outcome.failure.description, outcome.failure.client_id);
    this.logger.log({ level: "info", event: "token_issued", grant_type: fields.grant_type, client_id: outcome.client_id, user: outcome.user });
    sendJson(res, 200, outcome.tokens, { Pragma: "no-cache" });
  }

  private async register(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const remote = clientAddress(req);
    const verdict = this.registrations.take(`ip:${remote}`);
    if (!verdict.allowed) {
      this.logger.log({ level: "warn", event: "oauth_registration_refused", reason: "rate_limited", remote });
      const description = `At most ${REGISTRATIONS_PER_HOUR} registrations per hour from one address; retry after ${verdict.retryAfterSeconds} s, or reuse the client_id already registered.`;
      return sendOAuthError(res, 429, "invalid_client_metadata", description, { "Retry-After": String(verdict.retryAfterSeconds) });
    }
    const body = await readBody(req, REGISTRATION_BODY_LIMIT_BYTES);
    if (body.kind === "too_large") {
      this.logger.log({ level: "warn", event: "oauth_registration_refused", reason: "body_too_large", remote });
      const description = `The registration body exceeds ${REGISTRATION_BODY_LIMIT_BYTES} bytes; send only the client metadata.`;
      return sendOAuthError(res, 413, "invalid_client_metadata", description, { Connection: "close" });
    }
    const parsed = parseJson(body.text);
    const metadata = parsed.kind === "ok" ? readClientMetadata(parsed.value) : readClientMetadata(undefined);
    if (isRegistrationError(metadata)) {
      this.logger.log({ level: "info", event: "oauth_registration_refused", reason: metadata.error, remote });
      return sendOAuthError(res, 400, metadata.error, metadata.error_description);
    }
    const client = await this.options.service.registerClient(metadata);
    sendJson(res, 201, registrationResponse(client));
  }
}

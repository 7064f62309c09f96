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
  REGISTER_PATH,
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
import { MCP_PATH } from "./bearer";
import { parseJson, readBody } from "./body";
import { RateLimiter } from "./rate-limit";
import { sendJson, sendMethodNotAllowed } from "./responses";

export interface OAuthHttpOptions {
  service: OAuthService;
  /** Where clients reach this server (e.g. https://brain.example.com); default the listen address. */
  publicUrl?: string;
}

/** An OAuth error body (RFC 6749 §5.2, RFC 7591 §3.2.2); the router already sent no-store. */
function sendOAuthError(res: ServerResponse, status: number, error: string, description: string, headers: Record<string, string> = {}): void {
  sendJson(res, status, { error, error_description: description }, headers);
}

export class OAuthRoutes {
  readonly endpoints: OAuthEndpoints;
  private readonly metadata: ReadonlyMap<string, () => unknown>;
  private readonly registrations = new RateLimiter({ perMinute: REGISTRATIONS_PER_HOUR / 60, burst: REGISTRATIONS_PER_HOUR });

  constructor(
    readonly options: OAuthHttpOptions,
    publicUrl: string,
    private readonly logger: Logger,
  ) {
    this.endpoints = oauthEndpoints(publicUrl, MCP_PATH);
    const resource = protectedResourceMetadata(this.endpoints);
    const server = authorizationServerMetadata(this.endpoints);
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
    if (path === REGISTER_PATH) {
      if (req.method !== "POST") sendMethodNotAllowed(res, "POST");
      else await this.register(req, res);
      return true;
    }
    return false;
  }

  private async register(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const remote = req.socket.remoteAddress ?? "";
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

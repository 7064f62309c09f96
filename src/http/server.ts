// The HTTP front of the MCP server (SPEC §4): guards, auth, rate limit and body limit come first;
// only a checked, parsed POST body reaches the MCP layer.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Metrics } from "../core/metrics";
import type { Logger } from "../core/ports";
import type { UserInfo } from "../tools/types";
import { hashToken } from "../auth/tokens";
import { APPROVAL_STATUS_PATH } from "../auth/oauth/approval";
import { AUTHORIZE_PATH } from "../auth/oauth/metadata";
import { DEFAULT_BODY_LIMIT_BYTES, parseJson, readBody } from "./body";
import { isLoopbackBinding, isLoopbackHost, isOriginAllowed, normalizeOrigin } from "./guards";
import { bearerChallenge, bearerToken, MCP_PATH, OAUTH_HELP, TOKEN_HELP } from "./bearer";
import { routeClassOf, type MetricsEndpoint } from "./metrics";
import { OAuthRoutes, type OAuthHttpOptions } from "./oauth";
import { RateLimiter, type RateLimit } from "./rate-limit";
import {
  JSONRPC_INTERNAL_ERROR,
  JSONRPC_PARSE_ERROR,
  JSONRPC_SERVER_ERROR,
  sendEmpty,
  sendForbidden,
  sendJson,
  sendJsonRpcError,
  sendMethodNotAllowed,
} from "./responses";
import { clientAddress, TrustedProxies } from "./client-address";

export interface HttpServerOptions {
  host: string;
  port: number;
  authenticate(token: string): UserInfo | null;
  handleMcp(req: IncomingMessage, res: ServerResponse, user: UserInfo, body: unknown): Promise<void>;
  health(): Record<string, unknown>;
  logger: Logger;
  /** Browser origins allowed besides the server's own. */
  allowedOrigins?: string[];
  rateLimit?: RateLimit;
  bodyLimitBytes?: number;
  /** How long close() waits for requests in flight; 10 s unless a test wants less. */
  drainMs?: number;
  /** OAuth sign-in; absent, the server takes pasted bearer tokens only and offers no discovery. */
  oauth?: OAuthHttpOptions;
  /** Counts every request by route class and status, for the metrics endpoint. */
  metrics?: Metrics;
  /** The metrics endpoint on this listener (absent when off or on a listener of its own). */
  metricsEndpoint?: MetricsEndpoint;
  /** Reverse proxies whose X-Forwarded-For names the caller (addresses or ranges); none by default. */
  trustedProxies?: readonly string[];
}

export interface RunningHttpServer {
  /** The MCP endpoint, e.g. http://127.0.0.1:27125/mcp. */
  url: string;
  /** Scheme, host and port, without a path. */
  origin: string;
  port: number;
  /** Stops accepting, lets requests in flight finish for up to the drain time, then cuts the rest. */
  close(): Promise<void>;
}

export const DEFAULT_DRAIN_MS = 10_000;
const IDLE_SWEEP_MS = 100;

const MCP_METHODS = "POST, DELETE";
// What an OAuth client probes (RFC 9728, RFC 8414, OpenID discovery, dynamic registration). With
// OAuth off none of it exists; the 404 says how to connect instead, and mcp-remote shows that text
// when its registration attempt fails.
const OAUTH_PATHS = /^\/(?:\.well-known\/(?:oauth-protected-resource|oauth-authorization-server|openid-configuration)(?:\/.*)?|register|authorize|token)$/;

function urlHost(host: string): string {
  if (host === "0.0.0.0" || host === "::" || host === "") return "127.0.0.1";
  return host.includes(":") && !host.startsWith("[") ? `[${host}]` : host;
}

function pathnameOf(url: string | undefined): string {
  try {
    return new URL(url ?? "/", "http://request.invalid").pathname;
  } catch {
    return "";
  }
}

class RequestRouter {
  private readonly limiter: RateLimiter | undefined;
  private readonly allowedOrigins: ReadonlySet<string>;
  private readonly checkHost: boolean;
  private readonly publicHost: string | undefined;
  private readonly bodyLimit: number;
  private readonly proxies: TrustedProxies;
  /** Set once the server listens: the default public URL is the listen address. */
  oauth: OAuthRoutes | undefined;

  constructor(private readonly options: HttpServerOptions) {
    this.limiter = options.rateLimit ? new RateLimiter(options.rateLimit) : undefined;
    const publicOrigin = options.oauth?.publicUrl === undefined ? [] : [new URL(options.oauth.publicUrl).origin];
    // The login form posts from the public origin, which a TLS proxy's Host (no port) does not match.
    this.allowedOrigins = new Set([...(options.allowedOrigins ?? []), ...publicOrigin].map(normalizeOrigin));
    // Bound to another interface on purpose: the operator chose the names clients use.
    this.checkHost = isLoopbackBinding(options.host);
    // Behind a TLS proxy on the same machine, requests name the public host; it is the operator's.
    this.publicHost = options.oauth?.publicUrl === undefined ? undefined : new URL(options.oauth.publicUrl).host.toLowerCase();
    this.bodyLimit = options.bodyLimitBytes ?? DEFAULT_BODY_LIMIT_BYTES;
    this.proxies = new TrustedProxies(options.trustedProxies ?? []);
  }

  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    res.setHeader("Cache-Control", "no-store");
    res.setHeader("X-Content-Type-Options", "nosniff");
    if (!this.proxies.empty) this.proxies.note(req);
    const path = pathnameOf(req.url);
    const refusal = this.guardRefusal(req, path);
    if (refusal) return sendForbidden(res, refusal);
    if (path === MCP_PATH) return this.handleMcpRoute(req, res);
    if (path === "/healthz") return this.onlyGet(req, res, () => sendJson(res, 200, this.options.health()));
    const metrics = this.options.metricsEndpoint;
    if (metrics && path === metrics.route.path && metrics.enabled()) return metrics.handle(req, res);
    if (this.oauth && (await this.oauth.handle(req, res, path))) return;
    if (this.oauth && OAUTH_PATHS.test(path)) {
      return sendJsonRpcError(res, 404, JSONRPC_SERVER_ERROR, `Not found. OAuth discovery is at ${this.oauth.endpoints.issuer}/.well-known/oauth-authorization-server.`);
    }
    if (OAUTH_PATHS.test(path)) {
      return sendJsonRpcError(res, 404, JSONRPC_SERVER_ERROR, `Not found: this server has no OAuth. ${TOKEN_HELP} The MCP endpoint is ${MCP_PATH}.`);
    }
    sendJsonRpcError(res, 404, JSONRPC_SERVER_ERROR, `Not found. The MCP endpoint is ${MCP_PATH}.`);
  }

  private guardRefusal(req: IncomingMessage, path: string): string | undefined {
    const host = req.headers.host;
    if (this.checkHost && !isLoopbackHost(host) && (this.publicHost === undefined || host?.toLowerCase() !== this.publicHost)) return "the Host header must name 127.0.0.1, localhost or [::1].";
    const origin = req.headers.origin;
    // The login page's Referrer-Policy: no-referrer makes browsers send "Origin: null" with its form;
    // that post is guarded by its one-time CSRF token, which only a page of this origin could read.
    // The approval page's status poll is the same page's (Chromium sends the real origin, the Fetch
    // standard "null"); it reveals only the state of a request whose token a foreign page cannot know.
    if (origin === "null" && this.oauth && req.method === "POST" && (path === AUTHORIZE_PATH || path === APPROVAL_STATUS_PATH)) return undefined;
    if (origin !== undefined && !isOriginAllowed(origin, host, this.allowedOrigins)) {
      return "requests from this Origin are not accepted (add it to server.allowed_origins to allow it).";
    }
    return undefined;
  }

  private onlyGet(req: IncomingMessage, res: ServerResponse, answer: () => void): void {
    if (req.method === "GET") answer();
    else sendMethodNotAllowed(res, "GET");
  }

  private async handleMcpRoute(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const token = bearerToken(req.headers.authorization);
    const user = token === undefined ? null : (this.options.authenticate(token) ?? this.oauth?.authenticate(token) ?? null);
    // An unauthenticated caller counts against its address, so guessing tokens is rate limited too.
    const key = user && token !== undefined ? `token:${hashToken(token)}` : `ip:${clientAddress(req)}`;
    if (this.limiter) {
      const verdict = this.limiter.take(key);
      if (!verdict.allowed) return this.tooManyRequests(res, verdict.retryAfterSeconds);
    }
    if (!user) return this.unauthorized(req, res, token !== undefined);
    if (req.method === "POST") return this.handlePost(req, res, user, key);
    if (req.method === "DELETE") return sendEmpty(res, 204);
    sendMethodNotAllowed(res, MCP_METHODS);
  }

  private tooManyRequests(res: ServerResponse, retryAfterSeconds: number): void {
    this.options.logger.log({ level: "warn", event: "rate_limited", retry_after_s: retryAfterSeconds });
    sendJsonRpcError(res, 429, JSONRPC_SERVER_ERROR, `Too many requests; retry after ${retryAfterSeconds} s.`, {
      "Retry-After": String(retryAfterSeconds),
    });
  }

  private unauthorized(req: IncomingMessage, res: ServerResponse, tokenWasSent: boolean): void {
    this.options.logger.log({
      level: tokenWasSent ? "warn" : "info",
      event: "auth_failed",
      reason: tokenWasSent ? "invalid_token" : "missing_token",
      remote: clientAddress(req),
    });
    const description = tokenWasSent ? "The bearer token is not valid (revoked, expired, mistyped or from another server)." : "A bearer token is required.";
    const help = this.oauth ? OAUTH_HELP : TOKEN_HELP;
    sendJson(
      res,
      401,
      { error: "invalid_token", error_description: `${description} ${help}` },
      { "WWW-Authenticate": bearerChallenge(tokenWasSent, this.oauth?.endpoints.resourceMetadata) },
    );
  }

  private async handlePost(req: IncomingMessage, res: ServerResponse, user: UserInfo, rateKey: string): Promise<void> {
    const body = await readBody(req, this.bodyLimit);
    if (body.kind === "too_large") {
      const message = `Request body too large; the limit is ${this.bodyLimit} bytes.`;
      return sendJsonRpcError(res, 413, JSONRPC_SERVER_ERROR, message, { Connection: "close" });
    }
    const parsed = parseJson(body.text);
    if (parsed.kind === "invalid") {
      return sendJsonRpcError(res, 400, JSONRPC_PARSE_ERROR, `Parse error: ${parsed.reason}`);
    }
    // A JSON-RPC batch (protocol versions before 2025-06-18) is as many calls as it holds messages;
    // the request itself paid for the first.
    if (this.limiter && Array.isArray(parsed.value) && parsed.value.length > 1) {
      const calls = parsed.value.length;
      if (calls > this.limiter.burst) {
        const message = `Too many calls in one batch: ${calls}; the rate limit allows ${this.limiter.burst} at once. Send at most ${this.limiter.burst} messages per request.`;
        this.options.logger.log({ level: "warn", event: "rate_limited", batch: calls });
        return sendJsonRpcError(res, 429, JSONRPC_SERVER_ERROR, message);
      }
      const verdict = this.limiter.take(rateKey, calls - 1);
      if (!verdict.allowed) return this.tooManyRequests(res, verdict.retryAfterSeconds);
    }
    await this.options.handleMcp(req, res, user, parsed.value);
  }
}

function failRequest(res: ServerResponse, logger: Logger, error: unknown): void {
  logger.log({ level: "error", event: "http_request_failed", error: error instanceof Error ? error.name : typeof error });
  if (!res.headersSent) sendJsonRpcError(res, 500, JSONRPC_INTERNAL_ERROR, "Internal error; see the server log.");
  else res.destroy();
}

function listen(server: Server, host: string, port: number): Promise<AddressInfo> {
  return new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve(server.address() as AddressInfo);
    });
  });
}

function drain(server: Server, drainMs: number): Promise<void> {
  return new Promise((resolve) => {
    // Keep-alive sockets that go idle while draining would otherwise hold close() open.
    const sweep = setInterval(() => server.closeIdleConnections(), IDLE_SWEEP_MS);
    const deadline = setTimeout(() => server.closeAllConnections(), drainMs);
    server.close(() => {
      clearInterval(sweep);
      clearTimeout(deadline);
      resolve();
    });
    server.closeIdleConnections();
  });
}

export async function startHttpServer(options: HttpServerOptions): Promise<RunningHttpServer> {
  const router = new RequestRouter(options);
  const server = createServer((req, res) => {
    const metrics = options.metrics;
    if (metrics) {
      const endpoint = options.metricsEndpoint;
      const route = routeClassOf(pathnameOf(req.url), endpoint?.enabled() ? endpoint.route.path : undefined);
      res.once("finish", () => metrics.recordHttpRequest(route, res.statusCode));
    }
    router.handle(req, res).catch((error: unknown) => failRequest(res, options.logger, error));
  });
  const address = await listen(server, options.host, options.port);
  const origin = `http://${urlHost(options.host)}:${address.port}`;
  if (options.oauth) router.oauth = new OAuthRoutes(options.oauth, options.oauth.publicUrl ?? origin, options.logger);
  options.logger.log({ level: "info", event: "http_listening", host: options.host, port: address.port });
  if (!isLoopbackBinding(options.host)) {
    options.logger.log({ level: "warn", event: "http_exposed", host: options.host, port: address.port });
  }
  let closing: Promise<void> | undefined;
  return {
    url: `${origin}${MCP_PATH}`,
    origin,
    port: address.port,
    close(): Promise<void> {
      closing ??= drain(server, options.drainMs ?? DEFAULT_DRAIN_MS).then(() => {
        options.logger.log({ level: "info", event: "http_closed", port: address.port });
      });
      return closing;
    },
  };
}

// The Prometheus endpoint over HTTP (SPEC §11): off unless configured, on a path of the main
// listener or on a listener of its own, optionally behind a key. Checked in this order: the switch,
// the method, a rate limit of its own, the key — so a scraper with a wrong key is neither a timing
// oracle nor able to drain the MCP endpoint's buckets.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { ROUTE_CLASSES, type RouteClass } from "../core/metrics";
import type { Logger } from "../core/ports";
import { constantTimeEqual, hashToken, isTokenHash } from "../auth/tokens";
import { AUTHORIZE_PATH, REGISTER_PATH, TOKEN_PATH } from "../auth/oauth/metadata";
import { MCP_PATH } from "./bearer";
import { isLoopbackBinding } from "./guards";
import { RateLimiter } from "./rate-limit";
import { sendJson, sendMethodNotAllowed } from "./responses";
import { clientAddress } from "./client-address";

export const DEFAULT_METRICS_PATH = "/metrics";
/** The exposition format's content type (text format 0.0.4). */
export const METRICS_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";
/** A scrape every 15 s is 4 a minute; this leaves room for several scrapers and a person with curl. */
export const METRICS_RATE_LIMIT = { perMinute: 60, burst: 20 };
export const MIN_METRICS_KEY_LENGTH = 16;

export interface MetricsRoute {
  path: string;
  /** Read on every request: switching the endpoint off answers 404 from then on. Default on. */
  enabled?(): boolean;
  /**
   * The SHA-256 (hex) of the key a scraper must present, read on every request so a changed key
   * needs no restart; null when a key is configured but cannot be read now (every scrape is
   * refused); undefined when no key is set now (the plugin's key is generated and removed while it
   * runs). Absent: no key.
   */
  keyHash?(): Promise<string | null | undefined>;
  /** Where the scraper finds the key, for the refusal; default: the headless server's config file. */
  keyHelp?: string;
  /** The exposition text. */
  render(): Promise<string>;
  logger: Logger;
}

/** Why a metrics path cannot be used, or null. */
export function metricsPathProblem(path: string): string | null {
  if (!/^\/[A-Za-z0-9._~/-]*$/.test(path) || path.includes("//")) return "must start with / and hold only letters, digits and . _ ~ - /";
  if (path === "/" || path === MCP_PATH || path === "/healthz" || path.startsWith("/.well-known/") || [AUTHORIZE_PATH, TOKEN_PATH, REGISTER_PATH].includes(path)) {
    return `must not be /, ${MCP_PATH}, /healthz, an OAuth path or under /.well-known/`;
  }
  return null;
}

/** The route class a request path is counted under; never the path itself. */
export function routeClassOf(path: string, metricsPath: string | undefined): RouteClass {
  if (path === MCP_PATH) return "mcp";
  if (path === "/healthz") return "health";
  if (metricsPath !== undefined && path === metricsPath) return "metrics";
  if (path.startsWith("/.well-known/")) return "well_known";
  if (path === AUTHORIZE_PATH || path === TOKEN_PATH || path === REGISTER_PATH) return "oauth";
  return "other";
}

export { ROUTE_CLASSES };

/** The key as sent: `Authorization: Bearer <key>` (any case of the scheme) or `X-API-Key: <key>`. */
function presentedKey(req: IncomingMessage): string | undefined {
  const authorization = req.headers.authorization;
  const bearer = typeof authorization === "string" ? /^bearer\s+(.+)$/i.exec(authorization.trim())?.[1]?.trim() : undefined;
  if (bearer) return bearer;
  const header = req.headers["x-api-key"];
  const apiKey = (Array.isArray(header) ? header[0] : header)?.trim();
  return apiKey ? apiKey : undefined;
}

const KEY_HELP = "It is the value metrics.key names in the headless server's config file.";

export class MetricsEndpoint {
  private readonly limiter = new RateLimiter(METRICS_RATE_LIMIT);

  constructor(readonly route: MetricsRoute) {}

  enabled(): boolean {
    return this.route.enabled?.() ?? true;
  }

  /** Answers a request for the metrics path; the caller has checked the path and that it is on. */
  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    if (req.method !== "GET" && req.method !== "HEAD") return sendMethodNotAllowed(res, "GET, HEAD");
    const verdict = this.limiter.take(`ip:${clientAddress(req)}`);
    if (!verdict.allowed) {
      this.route.logger.log({ level: "warn", event: "metrics_rate_limited", retry_after_s: verdict.retryAfterSeconds });
      return sendJson(res, 429, { error: "rate_limited", error_description: `Too many scrapes; retry after ${verdict.retryAfterSeconds} s.` }, { "Retry-After": String(verdict.retryAfterSeconds) });
    }
    const expected = this.route.keyHash ? await this.route.keyHash() : undefined;
    if (expected !== undefined && !this.keyMatches(req, expected)) {
      return sendJson(
        res,
        401,
        { error: "invalid_key", error_description: `A valid metrics key is required. Send it as Authorization: Bearer <key> or X-API-Key: <key>. ${this.route.keyHelp ?? KEY_HELP}` },
        { "WWW-Authenticate": 'Bearer realm="metrics"' },
      );
    }
    const text = await this.route.render();
    res.writeHead(200, { "Content-Type": METRICS_CONTENT_TYPE, "Content-Length": String(Buffer.byteLength(text)) });
    res.end(req.method === "HEAD" ? undefined : text);
  }

  private keyMatches(req: IncomingMessage, expected: string | null): boolean {
    if (expected === null) this.route.logger.log({ level: "error", event: "metrics_key_unavailable" });
    const presented = presentedKey(req);
    // Hashes of equal length are compared whatever was sent, so the time taken tells nothing.
    const sent = Buffer.from(hashToken(presented ?? ""), "hex");
    const wanted = Buffer.from(expected !== null && isTokenHash(expected) ? expected : hashToken("\u0000no key"), "hex");
    const matches = constantTimeEqual(sent, wanted);
    if (!matches) this.route.logger.log({ level: "warn", event: "metrics_auth_failed", reason: presented === undefined ? "missing_key" : "invalid_key" });
    return matches && presented !== undefined && expected !== null;
  }
}

export interface RunningMetricsServer {
  origin: string;
  port: number;
  close(): Promise<void>;
}

/**
 * A listener of its own for the metrics path and a bare /healthz: bound to a port that is never
 * published, it keeps the numbers private whatever the key. Its requests are not counted.
 */
export async function startMetricsServer(options: { host: string; port: number; endpoint: MetricsEndpoint; logger: Logger }): Promise<RunningMetricsServer> {
  const { endpoint, logger } = options;
  const server: Server = createServer((req, res) => {
    res.setHeader("Cache-Control", "no-store");
    res.setHeader("X-Content-Type-Options", "nosniff");
    res.setHeader("Referrer-Policy", "no-referrer");
    let path = "";
    try {
      path = new URL(req.url ?? "/", "http://request.invalid").pathname;
    } catch {
      path = "";
    }
    const answer = async (): Promise<void> => {
      if (path === endpoint.route.path && endpoint.enabled()) return endpoint.handle(req, res);
      if (path === "/healthz") return req.method === "GET" ? sendJson(res, 200, { status: "ok" }) : sendMethodNotAllowed(res, "GET");
      sendJson(res, 404, { error: "not_found", error_description: `Not found. This listener serves ${endpoint.route.path} and /healthz only.` });
    };
    answer().catch((error: unknown) => {
      logger.log({ level: "error", event: "metrics_request_failed", error: error instanceof Error ? error.name : typeof error });
      if (!res.headersSent) sendJson(res, 500, { error: "internal", error_description: "Internal error; see the server log." });
      else res.destroy();
    });
  });
  const address = await new Promise<AddressInfo>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, options.host, () => {
      server.off("error", reject);
      resolve(server.address() as AddressInfo);
    });
  });
  const host = options.host.includes(":") && !options.host.startsWith("[") ? `[${options.host}]` : options.host;
  logger.log({ level: "info", event: "metrics_listening", host: options.host, port: address.port });
  if (!isLoopbackBinding(options.host)) logger.log({ level: "warn", event: "metrics_exposed", host: options.host, port: address.port });
  return {
    origin: `http://${host}:${address.port}`,
    port: address.port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

// A real HTTP server on port 0 with a stand-in MCP handler, and a raw client that can send any
// Host header (fetch cannot).
import { request } from "node:http";
import type { LogRecord } from "../../src/core/ports";
import { hashToken } from "../../src/auth/tokens";
import { UserStore } from "../../src/auth/users";
import { startHttpServer, type HttpServerOptions, type RunningHttpServer } from "../../src/http/server";
import type { OAuthHttpOptions } from "../../src/http/oauth";
import { nodeOAuthCrypto } from "../../src/auth/oauth/node-crypto";
import type { OAuthPersistence } from "../../src/auth/oauth/ports";
import { OAuthService, type OAuthServiceOptions } from "../../src/auth/oauth/service";

export const TOKEN = "sbm_http-test-token-000000000001";

export interface TestServer {
  server: RunningHttpServer;
  logs: LogRecord[];
  bodies: unknown[];
}

/** The users of every test server: "tester" with TOKEN, and "reader", read-only on one vault. */
export const users = new UserStore([
  { name: "tester", token_hashes: [hashToken(TOKEN)], vaults: [], read_only: false },
  { name: "reader", token_hashes: [], vaults: ["notes"], read_only: true, toolsets: ["find"] },
]);

export async function startTestServer(overrides: Partial<HttpServerOptions> = {}): Promise<TestServer> {
  const logs: LogRecord[] = [];
  const bodies: unknown[] = [];
  const server = await startHttpServer({
    host: "127.0.0.1",
    port: 0,
    authenticate: (token) => users.authenticate(token),
    handleMcp: async (_req, res, user, body) => {
      bodies.push(body);
      res.writeHead(200, { "Content-Type": "application/json" });
      res.end(JSON.stringify({ user: user.name, ...(user.name === "tester" ? {} : { vaults: user.vaults, read_only: user.readOnly, toolsets: user.toolsets }) }));
    },
    health: () => ({ status: "ok" }),
    logger: { log: (record) => logs.push(record) },
    drainMs: 1000,
    ...overrides,
  });
  return { server, logs, bodies };
}

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

export function rawRequest(
  port: number,
  options: { method?: string; path?: string; headers?: Record<string, string>; body?: string },
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: "127.0.0.1", port, method: options.method ?? "GET", path: options.path ?? "/mcp", headers: options.headers, setHost: !options.headers?.host },
      (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => (body += chunk));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      },
    );
    req.on("error", reject);
    req.end(options.body);
  });
}

export function authorized(extra: Record<string, string> = {}): Record<string, string> {
  return { Authorization: `Bearer ${TOKEN}`, "Content-Type": "application/json", ...extra };
}

export interface OAuthTestServer extends TestServer {
  service: OAuthService;
}

/** A test server with OAuth on; its service and the server log into the same records. */
export async function startOAuthTestServer(
  options: {
    publicUrl?: string;
    persistence?: OAuthPersistence;
    now?: () => number;
    maxClients?: number;
    verifyPassword?: OAuthHttpOptions["verifyPassword"];
    approval?: OAuthHttpOptions["approval"];
  } = {},
  overrides: Partial<HttpServerOptions> = {},
): Promise<OAuthTestServer> {
  const logs: LogRecord[] = [];
  const logger = { log: (record: LogRecord): void => void logs.push(record) };
  const serviceOptions: OAuthServiceOptions = { crypto: nodeOAuthCrypto, logger };
  if (options.persistence) serviceOptions.persistence = options.persistence;
  if (options.now) serviceOptions.now = options.now;
  if (options.maxClients !== undefined) serviceOptions.maxClients = options.maxClients;
  const service = await OAuthService.open(serviceOptions);
  const oauth: OAuthHttpOptions = { service, findUser: (name) => users.users().find((user) => user.name === name) ?? null };
  if (options.publicUrl !== undefined) oauth.publicUrl = options.publicUrl;
  if (options.verifyPassword) oauth.verifyPassword = options.verifyPassword;
  if (options.approval) oauth.approval = options.approval;
  const started = await startTestServer({ logger, oauth, ...overrides });
  return { ...started, logs, service };
}

// Streamable HTTP for both protocol eras on one endpoint (SPEC §4), stateless either way: a fresh
// server per POST, no session id issued, and one sent by a client ignored.
//
// The era is chosen per request by the SDK's own classification (isLegacyRequest): a request whose
// `_meta` claims a 2026-07-28 revision goes to the SDK's modern handler (server/discover, the
// per-request envelope, the Mcp-Method/Mcp-Name header checks, resultType, cache TTLs); the rest
// (initialize, and requests without the claim) is served the 2025 way. That leg is wired here rather
// than left to createMcpHandler's stateless fallback, which always answers with an SSE stream: SPEC §4
// wants JSON responses, with a stream only for a request that asked for progress.
import type { IncomingMessage, ServerResponse } from "node:http";
import {
  createMcpHandler,
  isInitializeRequest,
  isLegacyRequest,
  WebStandardStreamableHTTPServerTransport,
  type McpRequestContext,
} from "@modelcontextprotocol/server";
import type { Metrics } from "../core/metrics";
import type { Logger } from "../core/ports";
import type { AnyToolDefinition, UserInfo, VaultDirectory } from "../tools/types";
import { logUnexpected } from "./diagnostics";
import { buildInstructions } from "./instructions";
import { buildMcpServer, MAX_CLIENT_NAME_CHARS, type McpServerInstance } from "./server";

/** A request asking for progress gets an SSE response, the only way its notifications can arrive. */
export function wantsProgress(body: unknown): boolean {
  return messagesOf(body).some((message) => {
    if (typeof message !== "object" || message === null) return false;
    const params = (message as { params?: { _meta?: { progressToken?: unknown } } }).params;
    const token = params?._meta?.progressToken;
    return typeof token === "string" || typeof token === "number";
  });
}

function messagesOf(body: unknown): unknown[] {
  return Array.isArray(body) ? body : [body];
}

// Hop-by-hop headers, and the length of a body that was read already: the Request carries none.
const NOT_FORWARDED = new Set(["connection", "keep-alive", "transfer-encoding", "content-length", "upgrade"]);

/** The Node request as the SDK's web-standard face takes it; the body travels parsed, beside it. */
export function toWebRequest(req: IncomingMessage, signal: AbortSignal): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined || NOT_FORWARDED.has(name)) continue;
    for (const one of Array.isArray(value) ? value : [value]) headers.append(name, one);
  }
  let url: URL;
  try {
    url = new URL(req.url ?? "/", `http://${req.headers.host ?? "localhost"}`);
  } catch {
    url = new URL("http://localhost/mcp");
  }
  return new Request(url, { method: req.method ?? "POST", headers, signal });
}

function waitForDrain(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      res.off("drain", done);
      res.off("close", done);
      resolve();
    };
    res.on("drain", done);
    res.on("close", done);
  });
}

/** Writes a web Response to the Node response as it streams: an SSE event reaches the client at once. */
export async function sendWebResponse(res: ServerResponse, response: Response): Promise<void> {
  response.headers.forEach((value, name) => {
    // The router's Cache-Control (no-store) is stricter than the SDK's no-cache for streams.
    if (name === "cache-control" && res.hasHeader(name)) return;
    res.setHeader(name, value);
  });
  res.writeHead(response.status);
  if (response.body === null) {
    res.end();
    return;
  }
  res.flushHeaders();
  const reader = response.body.getReader();
  const stop = (): void => void reader.cancel().catch(() => undefined);
  res.once("close", stop);
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (!res.write(value)) await waitForDrain(res);
      if (res.destroyed) return;
    }
    res.end();
  } catch (error) {
    res.destroy(error instanceof Error ? error : undefined);
  } finally {
    res.off("close", stop);
  }
}

async function serveLegacy(request: Request, res: ServerResponse, body: unknown, server: McpServerInstance): Promise<void> {
  const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: !wantsProgress(body) });
  res.once("close", () => {
    void transport.close();
    void server.close();
  });
  await server.connect(transport);
  await sendWebResponse(res, await transport.handleRequest(request, { parsedBody: body }));
}

export interface McpRequestHandlerOptions {
  tools: readonly AnyToolDefinition[];
  /** The vaults one user may see. */
  directoryFor(user: UserInfo): VaultDirectory;
  logger: Logger;
  maxResponseBytes: number;
  version: string;
  now(): number;
  /** Counts tool calls for the metrics endpoint, when one is on. */
  metrics?: Metrics;
}

export type McpRequestHandler = (req: IncomingMessage, res: ServerResponse, user: UserInfo, body: unknown) => Promise<void>;

function carriesMethod(body: unknown, method: string): boolean {
  return messagesOf(body).some((message) => typeof message === "object" && message !== null && (message as { method?: unknown }).method === method);
}

function initializeClientName(body: unknown): string | undefined {
  for (const message of messagesOf(body)) {
    if (!isInitializeRequest(message)) continue;
    const name = message.params.clientInfo.name;
    if (name !== "") return name.slice(0, MAX_CLIENT_NAME_CHARS);
  }
  return undefined;
}

/** What a request's server is built from, found again by the modern handler's factory. */
interface RequestScope {
  user: UserInfo;
  directory: VaultDirectory;
  instructions?: string;
  rememberedClientName?: string;
}

/**
 * The `handleMcp` of startHttpServer: instructions are only assembled for initialize and
 * server/discover. A 2026-07-28 request names its client in its `_meta`; a stateless 2025-era tool
 * call arrives without the clientInfo of the initialize before it, so that name is remembered per
 * user (one user per client is how the settings and README set clients up). The history's `Via:`
 * trailer names the client with it.
 */
export function createMcpRequestHandler(options: McpRequestHandlerOptions): McpRequestHandler {
  const clientNames = new Map<string, string>();
  const scopes = new WeakMap<Request, RequestScope>();
  const { tools, logger, maxResponseBytes, version, metrics } = options;
  const now = (): number => options.now();
  const build = (scope: RequestScope, era: McpRequestContext["era"]): McpServerInstance =>
    buildMcpServer({ ...scope, era, tools, logger, maxResponseBytes, version, now, ...(metrics ? { metrics } : {}) });
  const modern = createMcpHandler(
    ({ era, requestInfo }) => {
      const scope = requestInfo === undefined ? undefined : scopes.get(requestInfo);
      if (scope === undefined) throw new Error("A request reached the MCP handler without its user.");
      return build(scope, era);
    },
    { legacy: "reject", responseMode: "auto", onerror: (error) => logUnexpected(logger, "mcp_request_refused", error) },
  );
  return async (req, res, user, body) => {
    const directory = options.directoryFor(user);
    const describing = carriesMethod(body, "initialize") || carriesMethod(body, "server/discover");
    const instructions = describing ? await buildInstructions(user, directory) : undefined;
    const aborted = new AbortController();
    res.once("close", () => aborted.abort());
    const request = toWebRequest(req, aborted.signal);
    if (await isLegacyRequest(request, body)) {
      const initializedAs = initializeClientName(body);
      if (initializedAs !== undefined) clientNames.set(user.name, initializedAs);
      const rememberedClientName = clientNames.get(user.name);
      const scope: RequestScope = { user, directory, instructions, ...(rememberedClientName !== undefined ? { rememberedClientName } : {}) };
      await serveLegacy(request, res, body, build(scope, "legacy"));
      return;
    }
    scopes.set(request, { user, directory, instructions });
    await sendWebResponse(res, await modern.fetch(request, { parsedBody: body }));
  };
}

// Stateless Streamable HTTP: a fresh transport and server per POST, both closed with the response.
// No session id is issued, and one sent by a client is ignored (SPEC §4).
import type { IncomingMessage, ServerResponse } from "node:http";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";
import type { Logger } from "../core/ports";
import type { AnyToolDefinition, UserInfo, VaultDirectory } from "../tools/types";
import { buildInstructions } from "./instructions";
import { buildMcpServer, type McpServerInstance } from "./server";

/** A request asking for progress gets an SSE response, the only way its notifications can arrive. */
export function wantsProgress(body: unknown): boolean {
  const messages: unknown[] = Array.isArray(body) ? body : [body];
  return messages.some((message) => {
    if (typeof message !== "object" || message === null) return false;
    const params = (message as { params?: { _meta?: { progressToken?: unknown } } }).params;
    const token = params?._meta?.progressToken;
    return typeof token === "string" || typeof token === "number";
  });
}

export async function handleMcpPost(req: IncomingMessage, res: ServerResponse, body: unknown, server: McpServerInstance): Promise<void> {
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: !wantsProgress(body) });
  res.once("close", () => {
    void transport.close();
    void server.close();
  });
  await server.connect(transport);
  await transport.handleRequest(req, res, body);
}

export interface McpRequestHandlerOptions {
  tools: readonly AnyToolDefinition[];
  /** The vaults one user may see. */
  directoryFor(user: UserInfo): VaultDirectory;
  logger: Logger;
  maxResponseBytes: number;
  version: string;
  now(): number;
}

export type McpRequestHandler = (req: IncomingMessage, res: ServerResponse, user: UserInfo, body: unknown) => Promise<void>;

function carriesInitialize(body: unknown): boolean {
  return Array.isArray(body) ? body.some((message) => isInitializeRequest(message)) : isInitializeRequest(body);
}

function initializeClientName(body: unknown): string | undefined {
  const messages: unknown[] = Array.isArray(body) ? body : [body];
  for (const message of messages) {
    if (!isInitializeRequest(message)) continue;
    const name = message.params.clientInfo.name;
    if (name !== "") return name.slice(0, 200);
  }
  return undefined;
}

/**
 * The `handleMcp` of startHttpServer: instructions are only assembled for an initialize request.
 * Stateless, each tool call arrives without the clientInfo of the initialize before it, so the name
 * is remembered per user (one user per client is how the settings and README set clients up); the
 * history's `Via:` trailer and the audit log name the client with it.
 */
export function createMcpRequestHandler(options: McpRequestHandlerOptions): McpRequestHandler {
  const clientNames = new Map<string, string>();
  return async (req, res, user, body) => {
    const directory = options.directoryFor(user);
    const initializing = carriesInitialize(body);
    const instructions = initializing ? await buildInstructions(user, directory) : undefined;
    const initializedAs = initializing ? initializeClientName(body) : undefined;
    if (initializedAs !== undefined) clientNames.set(user.name, initializedAs);
    const rememberedClientName = clientNames.get(user.name);
    const { tools, logger, maxResponseBytes, version } = options;
    const now = (): number => options.now();
    const server = buildMcpServer({ user, directory, instructions, tools, logger, maxResponseBytes, version, now, ...(rememberedClientName !== undefined ? { rememberedClientName } : {}) });
    await handleMcpPost(req, res, body, server);
  };
}

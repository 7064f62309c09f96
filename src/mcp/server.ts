// One low-level SDK Server per request and user over HTTP, one per connection over stdio. Tool
// schemas come from the definitions' JSON Schema as they are, so no zod schema is written here.
import {
  CLIENT_INFO_META_KEY,
  LATEST_PROTOCOL_VERSION,
  Server,
  type CacheHint,
  type JSONRPCMessage,
  type ProgressToken,
  type ProtocolEra,
  type ServerCapabilities,
  type ServerContext,
  type Transport,
} from "@modelcontextprotocol/server";
import { isToolError } from "../core/errors";
import type { Metrics } from "../core/metrics";
import type { Logger } from "../core/ports";
import type { AnyToolDefinition, ToolContext, UserInfo, VaultDirectory } from "../tools/types";
import { complete } from "./completions";
import { logUnexpected } from "./diagnostics";
import { getPrompt, listPrompts } from "./prompts";
import { listResources, listResourceTemplates, readResource } from "./resources";
import { protocolError, ProtocolError } from "./results";
import { ToolCatalog, type CallEnvironment } from "./tools";

export const SERVER_NAME = "secondbrain-mcp";
export const SERVER_TITLE = "Second Brain MCP";
/** The newest protocol revision served; 2025-11-25 and older are served beside it, chosen per request. */
export const PROTOCOL_VERSION = "2026-07-28";
/** The newest revision of the `initialize` era. */
export const LEGACY_PROTOCOL_VERSION = LATEST_PROTOCOL_VERSION;
/** Client names longer than this are cut: they land in history trailers and audit lines. */
export const MAX_CLIENT_NAME_CHARS = 200;

export interface McpServerOptions {
  user: UserInfo;
  tools: readonly AnyToolDefinition[];
  directory: VaultDirectory;
  logger: Logger;
  maxResponseBytes: number;
  version: string;
  now(): number;
  /** The protocol era this instance serves (2026-07-28 requests carry the client in each request). */
  era: ProtocolEra;
  /** Sent at initialize and server/discover; build it with buildInstructions() only for those. */
  instructions?: string;
  /** The client this user last initialized with: a stateless 2025-era server meets clientInfo only then. */
  rememberedClientName?: string;
  /** Counts tool calls for the metrics endpoint, when one is on. */
  metrics?: Metrics;
}

const CAPABILITIES: ServerCapabilities = {
  tools: { listChanged: false },
  resources: { listChanged: false },
  prompts: { listChanged: false },
  completions: {},
  logging: {},
};

const MINUTE_MS = 60_000;

/**
 * How long a 2026-07-28 client may keep a list (the revision requires a TTL on cacheable results).
 * The tool catalog changes only when the user's settings do, prompts and templates only with the
 * server; notes, and so the resource list and reads, change any time.
 */
const CACHE_HINTS: Record<"tools/list" | "prompts/list" | "resources/templates/list" | "resources/list" | "resources/read" | "server/discover", CacheHint> = {
  "tools/list": { ttlMs: 5 * MINUTE_MS, cacheScope: "private" },
  "prompts/list": { ttlMs: 60 * MINUTE_MS, cacheScope: "private" },
  "resources/templates/list": { ttlMs: 60 * MINUTE_MS, cacheScope: "private" },
  "resources/list": { ttlMs: 0, cacheScope: "private" },
  "resources/read": { ttlMs: 0, cacheScope: "private" },
  "server/discover": { ttlMs: 5 * MINUTE_MS, cacheScope: "private" },
};

type SendNotification = ServerContext["mcpReq"]["notify"];

/** Reports progress when the request asked for it; in JSON-response mode the notices are dropped. */
function progressReporter(token: ProgressToken | undefined, send: SendNotification): ToolContext["progress"] {
  if (token === undefined) return undefined;
  return async (progress, total, message) => {
    try {
      await send({ method: "notifications/progress", params: { progressToken: token, progress, total, message } });
    } catch {
      // A lost progress notice must not fail the tool.
    }
  };
}

function implementationName(info: unknown): string | undefined {
  const name = typeof info === "object" && info !== null ? (info as { name?: unknown }).name : undefined;
  return typeof name === "string" && name !== "" ? name.slice(0, MAX_CLIENT_NAME_CHARS) : undefined;
}

type Guarded = <T>(work: () => T | Promise<T>, context?: Record<string, unknown>) => Promise<T>;

/**
 * Runs a resource or prompt handler so that its failures become JSON-RPC errors; `context` joins the
 * error's data (a failed read names its URI there, as 2026-07-28 asks).
 */
function protocolGuard(logger: Logger): Guarded {
  return async (work, context) => {
    try {
      return await work();
    } catch (error) {
      if (!isToolError(error)) logUnexpected(logger, "mcp_handler_exception", error);
      const refusal = protocolError(error);
      if (context === undefined || typeof refusal.data !== "object" || refusal.data === null) throw refusal;
      throw new ProtocolError(refusal.code, refusal.message, { ...refusal.data, ...context });
    }
  };
}

/** The arguments of a tools/call message when they hold an own `__proto__` key, else undefined. */
function argumentsWithProto(message: JSONRPCMessage): { id: string | number; args: Record<string, unknown> } | undefined {
  if (!("method" in message) || message.method !== "tools/call" || !("id" in message)) return undefined;
  const args = (message.params as { arguments?: unknown } | undefined)?.arguments;
  if (typeof args !== "object" || args === null || !Object.hasOwn(args, "__proto__")) return undefined;
  return { id: message.id, args: args as Record<string, unknown> };
}

/**
 * The SDK's request schema copies a call's arguments and drops an own `__proto__` key on the way, so
 * the tool's schema would never see it. Such arguments are kept as they arrived, by request id, and
 * the call is checked against those: the key is refused by name like any other unknown argument.
 */
class ToolServer extends Server {
  private readonly sentWithProto = new Map<string | number, Record<string, unknown>>();

  override async connect(transport: Transport): Promise<void> {
    await super.connect(transport);
    const deliver = transport.onmessage;
    transport.onmessage = (message, extra) => {
      const found = argumentsWithProto(message);
      if (found) this.sentWithProto.set(found.id, found.args);
      deliver?.call(transport, message, extra);
    };
  }

  argumentsAsSent(id: string | number): Record<string, unknown> | undefined {
    const args = this.sentWithProto.get(id);
    this.sentWithProto.delete(id);
    return args;
  }
}

// The SDK marks the low-level Server deprecated in favour of McpServer, which wants zod or Standard
// schemas; ours are JSON Schema already, and the low-level class takes them as they are.
export type McpServerInstance = Server;

/**
 * Who is calling, for the history's `Via:` trailer and the audit log. A 2026-07-28 request names its
 * client in its own `_meta`; a 2025-era one only in an initialize (on this stdio connection, or in
 * the same HTTP batch), in a `_meta.clientInfo` some clients add, or as this user last initialized.
 */
function clientNameOf(server: Server, context: ServerContext, meta: Record<string, unknown> | undefined, options: McpServerOptions): string | undefined {
  if (options.era === "modern") {
    const envelope = context.mcpReq.envelope as Record<string, unknown> | undefined;
    return implementationName(envelope?.[CLIENT_INFO_META_KEY]);
  }
  return implementationName(server.getClientVersion()) ?? implementationName(meta?.clientInfo) ?? options.rememberedClientName;
}

export function buildMcpServer(options: McpServerOptions): McpServerInstance {
  const server = new ToolServer(
    { name: SERVER_NAME, title: SERVER_TITLE, version: options.version },
    { capabilities: CAPABILITIES, instructions: options.instructions, cacheHints: CACHE_HINTS },
  );
  const catalog = new ToolCatalog(options);
  const { directory, user } = options;
  const guarded = protocolGuard(options.logger);

  server.setRequestHandler("tools/list", () => ({ tools: catalog.list() }));
  server.setRequestHandler("tools/call", (request, context) => {
    const environment: CallEnvironment = {
      clientName: clientNameOf(server, context, request.params._meta, options),
      progress: progressReporter(request.params._meta?.progressToken, context.mcpReq.notify),
      signal: context.mcpReq.signal,
    };
    return catalog.call(request.params.name, server.argumentsAsSent(context.mcpReq.id) ?? request.params.arguments ?? {}, environment);
  });
  server.setRequestHandler("resources/list", () => guarded(() => listResources(directory)));
  server.setRequestHandler("resources/templates/list", () => listResourceTemplates());
  server.setRequestHandler("resources/read", (request) => guarded(() => readResource(directory, request.params.uri), { uri: request.params.uri }));
  server.setRequestHandler("completion/complete", (request) => complete(directory, request.params));
  server.setRequestHandler("prompts/list", () => listPrompts());
  server.setRequestHandler("prompts/get", (request) =>
    guarded(() => getPrompt(request.params.name, request.params.arguments, user, directory)),
  );
  // logging/setLevel is answered by the SDK itself once the logging capability is declared; a level
  // set in one stateless request could not outlive it anyway.
  return server;
}

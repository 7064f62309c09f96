// One low-level SDK Server per request and user (the transport is stateless). Tool schemas come
// from the definitions' JSON Schema as they are, so no zod schema is written here.
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import type { RequestHandlerExtra } from "@modelcontextprotocol/sdk/shared/protocol.js";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import {
  CallToolRequestSchema,
  CompleteRequestSchema,
  GetPromptRequestSchema,
  LATEST_PROTOCOL_VERSION,
  ListPromptsRequestSchema,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  ReadResourceRequestSchema,
  type JSONRPCMessage,
  type ProgressToken,
  type ServerCapabilities,
  type ServerNotification,
  type ServerRequest,
} from "@modelcontextprotocol/sdk/types.js";
import { isToolError } from "../core/errors";
import type { Logger } from "../core/ports";
import type { AnyToolDefinition, ToolContext, UserInfo, VaultDirectory } from "../tools/types";
import { complete } from "./completions";
import { logUnexpected } from "./diagnostics";
import { getPrompt, listPrompts } from "./prompts";
import { listResources, listResourceTemplates, readResource } from "./resources";
import { protocolError } from "./results";
import { ToolCatalog, type CallEnvironment } from "./tools";

export const SERVER_NAME = "secondbrain-mcp";
export const SERVER_TITLE = "Second Brain MCP";
export const PROTOCOL_VERSION = LATEST_PROTOCOL_VERSION;

export interface McpServerOptions {
  user: UserInfo;
  tools: readonly AnyToolDefinition[];
  directory: VaultDirectory;
  logger: Logger;
  maxResponseBytes: number;
  version: string;
  now(): number;
  /** Sent at initialize; build it with buildInstructions() only for initialize requests. */
  instructions?: string;
  /** The client this user last initialized with: a stateless server meets clientInfo only then. */
  rememberedClientName?: string;
}

const CAPABILITIES: ServerCapabilities = {
  tools: { listChanged: false },
  resources: { listChanged: false },
  prompts: { listChanged: false },
  completions: {},
  logging: {},
};

type SendNotification = RequestHandlerExtra<ServerRequest, ServerNotification>["sendNotification"];

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

function metaClientName(meta: Record<string, unknown> | undefined): string | undefined {
  const info = meta?.clientInfo;
  const name = typeof info === "object" && info !== null ? (info as { name?: unknown }).name : undefined;
  return typeof name === "string" && name !== "" ? name : undefined;
}

type Guarded = <T>(work: () => T | Promise<T>) => Promise<T>;

/** Runs a resource or prompt handler so that its failures become JSON-RPC errors. */
function protocolGuard(logger: Logger): Guarded {
  return async (work) => {
    try {
      return await work();
    } catch (error) {
      if (!isToolError(error)) logUnexpected(logger, "mcp_handler_exception", error);
      throw protocolError(error);
    }
  };
}

/** The arguments of a tools/call message when they hold an own `__proto__` key, else undefined. */
function argumentsWithProto(message: JSONRPCMessage): { id: string | number; args: Record<string, unknown> } | undefined {
  if (!("method" in message) || message.method !== "tools/call" || !("id" in message)) return undefined;
  const args = message.params?.arguments;
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

// The SDK marks the low-level Server deprecated in favour of McpServer, which wants zod schemas;
// ours are JSON Schema already, and the low-level class takes them as they are.
export type McpServerInstance = Server;

export function buildMcpServer(options: McpServerOptions): McpServerInstance {
  const server = new ToolServer(
    { name: SERVER_NAME, title: SERVER_TITLE, version: options.version },
    { capabilities: CAPABILITIES, instructions: options.instructions },
  );
  const catalog = new ToolCatalog(options);
  const { directory, user } = options;
  const guarded = protocolGuard(options.logger);

  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: catalog.list() }));
  server.setRequestHandler(CallToolRequestSchema, (request, extra) => {
    const environment: CallEnvironment = {
      clientName: server.getClientVersion()?.name ?? metaClientName(request.params._meta) ?? options.rememberedClientName,
      progress: progressReporter(request.params._meta?.progressToken, extra.sendNotification),
      signal: extra.signal,
    };
    return catalog.call(request.params.name, server.argumentsAsSent(extra.requestId) ?? request.params.arguments ?? {}, environment);
  });
  server.setRequestHandler(ListResourcesRequestSchema, () => guarded(() => listResources(directory)));
  server.setRequestHandler(ListResourceTemplatesRequestSchema, () => listResourceTemplates());
  server.setRequestHandler(ReadResourceRequestSchema, (request) =>
    guarded(() => readResource(directory, request.params.uri)),
  );
  server.setRequestHandler(CompleteRequestSchema, (request) => complete(directory, request.params));
  server.setRequestHandler(ListPromptsRequestSchema, () => listPrompts());
  server.setRequestHandler(GetPromptRequestSchema, (request) =>
    guarded(() => getPrompt(request.params.name, request.params.arguments, user, directory)),
  );
  // logging/setLevel is answered by the SDK itself once the logging capability is declared; a level
  // set in one stateless request could not outlive it anyway.
  return server;
}

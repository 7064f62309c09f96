// `serve --stdio`: one MCP session over stdin/stdout for clients that only launch local processes
// (Claude Desktop). The process owner is the user, so the session has every vault, read-write, and
// the toolsets --toolsets names. The SDK's serveStdio picks the protocol era from the opening message
// (initialize, or a 2026-07-28 request or server/discover) and pins one server to the connection; our
// line transport carries it.
import { serveStdio as serveMcpStdio, type StdioServerHandle } from "@modelcontextprotocol/server/stdio";
import { DEFAULT_USER_NAME } from "../../auth/users";
import { VaultRegistry } from "../../core/vault/directory";
import type { Logger } from "../../core/ports";
import { DEFAULT_BODY_LIMIT_BYTES } from "../../http/body";
import { logUnexpected } from "../../mcp/diagnostics";
import { buildInstructions } from "../../mcp/instructions";
import { buildMcpServer } from "../../mcp/server";
import { LineTransport } from "../../mcp/stdio";
import { ALL_TOOLS } from "../../tools/registry";
import type { ToolGroup, UserInfo } from "../../tools/types";
import { DEFAULT_MAX_RESPONSE_BYTES, type HeadlessVault } from "./headless";
import { NodeVaultHost, type EmbeddingSettings, type OnDeviceEmbeddingSettings } from "./host";
import { VERSION } from "./version";

/**
 * The longest line (one JSON-RPC message) taken on stdin: the same as an HTTP request body, so that
 * both transports carry the same calls (attachment_put: files up to about 6 MiB).
 */
export const STDIO_LINE_LIMIT_BYTES = DEFAULT_BODY_LIMIT_BYTES;
/** Once stdin ends, requests in flight get this long to be answered. */
const DRAIN_MS = 500;
/**
 * Shutting down (closing the session, persisting every index) may take this long; then the process
 * exits anyway. A client that launched it waits for it (Claude Desktop waits 2 s, then kills it).
 */
const STOP_BUDGET_MS = 1200;

export interface StdioOptions {
  vaults: HeadlessVault[];
  dataDir: string;
  logger: Logger & { close?(): Promise<void> };
  history?: boolean;
  /** The tool groups offered; undefined is every toolset. */
  toolsets?: readonly ToolGroup[];
  /** The config file's limits.max_response_bytes; the HTTP server's default otherwise. */
  maxResponseBytes?: number;
  /** Semantic search through this endpoint or on-device model (the config file's embeddings section). */
  embeddings?: EmbeddingSettings | OnDeviceEmbeddingSettings;
}

export async function serveStdio(options: StdioOptions): Promise<void> {
  const { logger } = options;
  const hosts = options.vaults.map((vault) => new NodeVaultHost({ ...vault, dataDir: options.dataDir, exclusive: false, logger, history: options.history, ...(options.embeddings ? { embeddings: options.embeddings } : {}) }));
  const transport = new LineTransport({ input: process.stdin, output: process.stdout, maxLineBytes: STDIO_LINE_LIMIT_BYTES, drainMs: DRAIN_MS });
  let started: Promise<unknown> = Promise.resolve();
  let session: StdioServerHandle | null = null;
  let stopping = false;
  // Idempotent: closing the server closes the transport, whose onclose lands here again.
  const stop = (reason: string): void => {
    if (stopping) return;
    stopping = true;
    logger.log({ level: "info", event: "shutdown", transport: "stdio", reason });
    const cutShort = setTimeout(() => {
      logger.log({ level: "warn", event: "shutdown_cut_short", transport: "stdio", budget_ms: STOP_BUDGET_MS, reason: "the index was not saved in time; the next start rebuilds it from the files" });
      process.exit(1);
    }, STOP_BUDGET_MS);
    cutShort.unref();
    void started
      .catch(() => undefined)
      .then(async () => {
        await session?.close();
        for (const host of hosts) await host.stop();
        await logger.close?.();
      })
      .then(
        () => process.exit(0),
        () => process.exit(1),
      );
  };
  process.on("SIGINT", () => stop("SIGINT"));
  process.on("SIGTERM", () => stop("SIGTERM"));
  void transport.ended.then(() => stop("the client closed stdin or stdout"));

  started = (async () => {
    for (const host of hosts) await host.start();
  })();
  await started;
  if (stopping) return;
  const registry = new VaultRegistry(hosts.map((host) => host.engine));
  const user: UserInfo = { name: DEFAULT_USER_NAME, readOnly: false, vaults: [], ...(options.toolsets ? { toolsets: options.toolsets } : {}) };
  const directory = registry.forUser(user);
  // One connection is one session, so the instructions (the vaults' INSTRUCTIONS.md included) are
  // assembled once, as the HTTP transport does at each initialize.
  const instructions = await buildInstructions(user, directory);
  if (stopping) return;
  const maxResponseBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES;
  session = serveMcpStdio(
    ({ era }) =>
      buildMcpServer({
        user,
        tools: ALL_TOOLS,
        directory,
        logger,
        maxResponseBytes,
        version: VERSION,
        now: () => Date.now(),
        era,
        instructions,
      }),
    { transport, legacy: "serve", onerror: (error) => logUnexpected(logger, "mcp_stdio_error", error) },
  );
  logger.log({ level: "info", event: "startup", transport: "stdio", vaults: hosts.length, version: VERSION, max_line_bytes: STDIO_LINE_LIMIT_BYTES, max_response_bytes: maxResponseBytes });
}

// Real vault engines over temp copies of the fixtures, a real HTTP server with the MCP layer, and
// official SDK clients; plus the small tool set the MCP tests drive.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { hashToken } from "../../src/auth/tokens";
import { UserStore, type UserRecord } from "../../src/auth/users";
import { ToolError } from "../../src/core/errors";
import type { LogRecord, Logger } from "../../src/core/ports";
import { VaultRegistry } from "../../src/core/vault/directory";
import { NodeVaultHost } from "../../src/hosts/node/host";
import { startHttpServer, type RunningHttpServer } from "../../src/http/server";
import { createMcpRequestHandler } from "../../src/mcp/transport";
import { DEFAULT_MAX_RESPONSE_BYTES } from "../../src/mcp/truncate";
import { boolean, integer, object, optional, string, withDefault } from "../../src/tools/schema";
import { defineTool, READ_ONLY, withImages, type AnyToolDefinition } from "../../src/tools/types";
import { EDGE_VAULT, tempVault } from "../support/vaults";

export const WRITER_TOKEN = "sbm_writer-token-0000000000000001";
export const READER_TOKEN = "sbm_reader-token-0000000000000002";
export const SIDE_ONLY_TOKEN = "sbm_side-token-00000000000000003";

export const USERS: UserRecord[] = [
  { name: "writer", token_hashes: [hashToken(WRITER_TOKEN)], vaults: [], read_only: false },
  { name: "reader", token_hashes: [hashToken(READER_TOKEN)], vaults: [], read_only: true },
  { name: "side-only", token_hashes: [hashToken(SIDE_ONLY_TOKEN)], vaults: ["side"], read_only: false },
];

export const SIDE_INSTRUCTIONS = "Side vault rule: keep every note under 200 words.";

export interface TestVaults {
  registry: VaultRegistry;
  stop(): Promise<void>;
}

function writeSideVault(root: string): void {
  mkdirSync(path.join(root, "ideas"), { recursive: true });
  writeFileSync(path.join(root, "INSTRUCTIONS.md"), `${SIDE_INSTRUCTIONS}\n`);
  writeFileSync(path.join(root, "ideas", "first idea.md"), "---\ntitle: First idea\n---\n# First idea\n\nSide text.\n");
  writeFileSync(path.join(root, "ideas", "second.md"), "# Second\n");
}

/** `edge` (a copy of edge-vault, the default) and `side` (two notes and an INSTRUCTIONS.md). */
export async function startVaults(): Promise<TestVaults> {
  const edge = tempVault(EDGE_VAULT);
  const sideBase = mkdtempSync(path.join(os.tmpdir(), "sbmcp-side-"));
  const sideRoot = path.join(sideBase, "vault");
  writeSideVault(sideRoot);
  const quiet: Logger = { log: () => {} };
  const hosts = [
    new NodeVaultHost({ name: "edge", root: edge.dir, dataDir: edge.dataDir, logger: quiet, watch: false }),
    new NodeVaultHost({ name: "side", root: sideRoot, dataDir: path.join(sideBase, "data"), logger: quiet, watch: false }),
  ];
  for (const host of hosts) await host.start();
  return {
    registry: new VaultRegistry(hosts.map((host) => host.engine)),
    async stop() {
      for (const host of hosts) await host.stop();
      edge.cleanup();
      rmSync(sideBase, { recursive: true, force: true });
    },
  };
}

const vaultArg = optional(string({ description: "Vault name; the default vault when omitted." }));

/** Reads a note of a real vault and echoes the arguments an audit line may or may not show. */
export const probeRead = defineTool({
  name: "probe_read",
  title: "Probe read",
  description: "Reads a note and returns its hash.",
  group: "find",
  input: object({
    vault: vaultArg,
    path: string({ description: "Note path." }),
    query: optional(string({ description: "Free text." })),
  }),
  annotations: READ_ONLY,
  handler: async (ctx, args) => {
    const engine = ctx.vaults.get(args.vault);
    const file = await engine.read(args.path, { note: true });
    return { vault: engine.name, path: file.path, content_hash: file.content_hash, client: ctx.clientName ?? null };
  },
});

export const probeWrite = defineTool({
  name: "probe_write",
  title: "Probe write",
  description: "Pretends to write content to a note.",
  group: "write",
  input: object({
    vault: vaultArg,
    path: string({ description: "Note path." }),
    content: string({ description: "New content.", raw: true }),
    dry_run: withDefault(boolean({ description: "Only show what would change." }), false),
  }),
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false },
  handler: async (ctx, args) => {
    if (args.content.includes("CONFLICT")) {
      throw new ToolError("conflict", `The note changed; content "${args.content}" was not written. Call note_read again.`, {
        details: { path: args.path, actual_hash: "0123456789abcdef0123456789abcdef" },
      });
    }
    return { vault: ctx.vaults.get(args.vault).name, path: args.path, dry_run: args.dry_run, bytes: args.content.length };
  },
});

export const probeList = defineTool({
  name: "probe_list",
  title: "Probe list",
  description: "Returns a list of generated entries from offset on, or one long text.",
  group: "find",
  input: object({
    count: integer({ description: "How many entries.", minimum: 0, maximum: 100_000 }),
    offset: withDefault(integer({ description: "Skip this many entries.", minimum: 0 }), 0),
    text_chars: withDefault(integer({ description: "Length of a text field.", minimum: 0 }), 0),
  }),
  annotations: READ_ONLY,
  largeResults: true,
  handler: async (_ctx, args) => {
    const entries = Array.from({ length: Math.max(0, args.count - args.offset) }, (_, index) => ({ path: `notes/entry-${args.offset + index}.md`, words: index }));
    return { vault: "edge", total: args.count, returned: entries.length, offset: args.offset, entries, text: "é".repeat(args.text_chars) };
  },
});

export const probeCrash = defineTool({
  name: "probe_crash",
  title: "Probe crash",
  description: "Fails with an error that is not a ToolError.",
  group: "find",
  input: object({ secret: string({ description: "Text that must not reach a log." }) }),
  annotations: READ_ONLY,
  handler: async (_ctx, args) => {
    throw new TypeError(`cannot read property of ${args.secret}`);
  },
});

export const probeProgress = defineTool({
  name: "probe_progress",
  title: "Probe progress",
  description: "Reports progress in steps, then returns how many notices it sent.",
  group: "find",
  input: object({ steps: integer({ description: "How many steps.", minimum: 1, maximum: 10 }) }),
  annotations: READ_ONLY,
  handler: async (ctx, args) => {
    for (let step = 1; step <= args.steps; step++) await ctx.progress?.(step, args.steps, `step ${step}`);
    return { steps: args.steps, reported: ctx.progress !== undefined };
  },
});

/** A 1×1 red PNG. */
export const ONE_PIXEL_PNG =
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";

export const probeImage = defineTool({
  name: "probe_image",
  title: "Probe image",
  description: "Returns a one-pixel PNG as image content beside its result.",
  group: "find",
  input: object({}),
  annotations: READ_ONLY,
  handler: async () => withImages({ width: 1, height: 1 }, [{ data: ONE_PIXEL_PNG, mimeType: "image/png" }]),
});

export const TEST_TOOLS: AnyToolDefinition[] = [probeRead, probeWrite, probeList, probeCrash, probeProgress, probeImage];

export interface McpTestServer {
  http: RunningHttpServer;
  logs: LogRecord[];
  connect(token: string, clientName?: string): Promise<Client>;
  close(): Promise<void>;
}

export async function startMcpServer(registry: VaultRegistry, options: { maxResponseBytes?: number } = {}): Promise<McpTestServer> {
  const logs: LogRecord[] = [];
  const logger: Logger = { log: (record) => logs.push(record) };
  const users = new UserStore(USERS);
  const http = await startHttpServer({
    host: "127.0.0.1",
    port: 0,
    authenticate: (token) => users.authenticate(token),
    handleMcp: createMcpRequestHandler({
      tools: TEST_TOOLS,
      directoryFor: (user) => registry.forUser(user),
      logger,
      maxResponseBytes: options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES,
      version: "0.0.0-test",
      now: Date.now,
    }),
    health: () => ({ status: "ok" }),
    logger,
    drainMs: 200,
  });
  const clients: Client[] = [];
  return {
    http,
    logs,
    async connect(token, clientName = "mcp-test") {
      const client = new Client({ name: clientName, version: "1.0.0" });
      await client.connect(new StreamableHTTPClientTransport(new URL(http.url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
      clients.push(client);
      return client;
    },
    async close() {
      for (const client of clients) await client.close();
      await http.close();
    },
  };
}

export interface CallOutcome {
  isError: boolean;
  text: string;
  structured: Record<string, unknown>;
}

export async function call(client: Client, name: string, args: Record<string, unknown> = {}): Promise<CallOutcome> {
  const result = await client.callTool({ name, arguments: args });
  const content = result.content as Array<{ type: string; text?: string }>;
  return {
    isError: result.isError === true,
    text: content.map((part) => part.text ?? "").join(""),
    structured: (result.structuredContent ?? {}) as Record<string, unknown>,
  };
}

// A real headless server on an ephemeral port, and official SDK clients talking to it over HTTP.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { defaultUser, type UserRecord } from "../../src/auth/users";
import { generateToken } from "../../src/auth/tokens";
import { HeadlessServer, type HeadlessOptions } from "../../src/hosts/node/headless";
import { JsonLineLogger } from "../../src/hosts/node/services";
import { tempVault, type TempVault } from "./vaults";

export interface ToolCallResult {
  isError: boolean;
  text: string;
  structured: Record<string, unknown>;
}

export interface TestServer {
  server: HeadlessServer;
  vault: TempVault;
  url: string;
  token: string;
  logs: string[];
  connect(token?: string, name?: string): Promise<Client>;
  call(name: string, args?: Record<string, unknown>): Promise<ToolCallResult>;
  stop(): Promise<void>;
}

export interface TestServerOptions {
  fixture: string;
  name?: string;
  users?: UserRecord[];
  extra?: Partial<HeadlessOptions>;
  /** Reuse an existing temp vault (restart tests). */
  vault?: TempVault;
  /** Serve at once, while the history may still record its first snapshot (default: wait for it). */
  quiet?: boolean;
}

export async function callTool(client: Client, name: string, args: Record<string, unknown> = {}): Promise<ToolCallResult> {
  const result = await client.callTool({ name, arguments: args });
  const content = result.content as Array<{ type: string; text?: string }>;
  return {
    isError: result.isError === true,
    text: content.map((part) => part.text ?? "").join("\n"),
    structured: (result.structuredContent ?? {}) as Record<string, unknown>,
  };
}

export async function startTestServer(options: TestServerOptions): Promise<TestServer> {
  const vault = options.vault ?? tempVault(options.fixture);
  const token = generateToken();
  const logs: string[] = [];
  const logger = new JsonLineLogger({ level: "debug", write: (line) => logs.push(line) });
  const server = new HeadlessServer({
    vaults: [{ name: options.name ?? "test", root: vault.dir }],
    dataDir: vault.dataDir,
    host: "127.0.0.1",
    port: 0,
    users: options.users ?? [defaultUser(token)],
    logger,
    ...options.extra,
  });
  await server.start();
  // Tests start from a quiet vault: the history's first snapshot is recorded before the first call.
  if (options.quiet !== false) await server.historyIdle();
  const url = server.url;
  const clients: Client[] = [];
  const connect = async (withToken = token, name = "test-client"): Promise<Client> => {
    const client = new Client({ name, version: "1.0.0" });
    const transport = new StreamableHTTPClientTransport(new URL(url), {
      requestInit: { headers: { Authorization: `Bearer ${withToken}` } },
    });
    await client.connect(transport);
    clients.push(client);
    return client;
  };
  let shared: Client | null = null;
  return {
    server,
    vault,
    url,
    token,
    logs,
    connect,
    async call(name, args = {}) {
      shared ??= await connect();
      return callTool(shared, name, args);
    },
    async stop() {
      for (const client of clients) await client.close().catch(() => undefined);
      await server.stop();
      if (!options.vault) vault.cleanup();
    },
  };
}

// Our engine over MCP Streamable HTTP: the real headless server on an ephemeral port and the
// official SDK client with a bearer token, as an agent would call it.
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { generateToken } from "../src/auth/tokens";
import { defaultUser } from "../src/auth/users";
import { HeadlessServer } from "../src/hosts/node/headless";
import { JsonLineLogger } from "../src/hosts/node/services";
import { BENCH_VAULT } from "./ours";

export interface BenchServer {
  server: HeadlessServer;
  client: Client;
  call(name: string, args: Record<string, unknown>): Promise<CallToolResult>;
  ping(): Promise<void>;
  stop(): Promise<void>;
}

export async function startBenchServer(root: string, dataDir: string): Promise<BenchServer> {
  const token = generateToken();
  const server = new HeadlessServer({
    vaults: [{ name: BENCH_VAULT, root }],
    dataDir,
    host: "127.0.0.1",
    port: 0,
    users: [defaultUser(token)],
    // Audit lines are still formatted (their cost is part of a call) but written nowhere.
    logger: new JsonLineLogger({ level: "info", write: () => undefined }),
    watch: false,
    // The index and the HTTP path are measured here; a history's first-start baseline of every
    // note would run alongside and blur them.
    history: false,
    // Latency is measured here, not the limiter: the default (300 at once, 50 a second) is met by the
    // bench's back-to-back calls on a small vault.
    rateLimit: { perMinute: 600_000, burst: 10_000 },
  });
  await server.start();
  const client = new Client({ name: "secondbrain-bench", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL(server.url), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  });
  await client.connect(transport);
  return {
    server,
    client,
    async call(name, args) {
      return (await client.callTool({ name, arguments: args })) as CallToolResult;
    },
    async ping() {
      await client.ping();
    },
    async stop() {
      await client.close().catch(() => undefined);
      await server.stop();
    },
  };
}

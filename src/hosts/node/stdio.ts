// `serve --stdio`: one MCP session over stdin/stdout for clients that only launch local processes
// (Claude Desktop). The process owner is the user, so the session has every vault, read-write.
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { DEFAULT_USER_NAME } from "../../auth/users";
import { VaultRegistry } from "../../core/vault/directory";
import type { Logger } from "../../core/ports";
import { buildMcpServer } from "../../mcp/server";
import { ALL_TOOLS } from "../../tools/registry";
import type { UserInfo } from "../../tools/types";
import { DEFAULT_MAX_RESPONSE_BYTES, type HeadlessVault } from "./headless";
import { NodeVaultHost } from "./host";
import { VERSION } from "./version";

export async function serveStdio(options: { vaults: HeadlessVault[]; dataDir: string; logger: Logger; history?: boolean }): Promise<void> {
  const hosts = options.vaults.map((vault) => new NodeVaultHost({ ...vault, dataDir: options.dataDir, logger: options.logger, history: options.history }));
  for (const host of hosts) await host.start();
  const registry = new VaultRegistry(hosts.map((host) => host.engine));
  const user: UserInfo = { name: DEFAULT_USER_NAME, readOnly: false, vaults: [] };
  const server = buildMcpServer({
    user,
    tools: ALL_TOOLS,
    directory: registry.forUser(user),
    logger: options.logger,
    maxResponseBytes: DEFAULT_MAX_RESPONSE_BYTES,
    version: VERSION,
    now: () => Date.now(),
  });
  const transport = new StdioServerTransport();
  const stop = async (): Promise<void> => {
    await server.close();
    for (const host of hosts) await host.stop();
    process.exit(0);
  };
  transport.onclose = () => void stop();
  process.on("SIGINT", () => void stop());
  process.on("SIGTERM", () => void stop());
  await server.connect(transport);
  options.logger.log({ level: "info", event: "startup", transport: "stdio", vaults: hosts.length, version: VERSION });
}

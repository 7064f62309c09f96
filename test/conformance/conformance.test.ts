// The official MCP conformance suite against our server, behind a proxy that adds the bearer token.
// Scenarios that need the suite's own fixtures are listed, with reasons, in expected-failures.yml.
import { existsSync } from "node:fs";
import { cp, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { test } from "node:test";
import assert from "node:assert/strict";
import { UserStore, defaultUser } from "../../src/auth/users";
import { ToolError } from "../../src/core/errors";
import { startHttpServer } from "../../src/http/server";
import { createMcpRequestHandler } from "../../src/mcp/transport";
import type { VaultDirectory } from "../../src/tools/types";
import { runProcess, startBearerProxy, startCliServer, type ServerUnderTest } from "./harness";
import { EDGE_VAULT } from "../support/vaults";

const ROOT = path.resolve(__dirname, "../..");
const CLI = path.join(ROOT, "dist/cli.js");
const SUITE = path.join(ROOT, "node_modules/@modelcontextprotocol/conformance/dist/index.js");
const BASELINE = path.join(__dirname, "expected-failures.yml");
const TOKEN = "conformance-token-0123456789";

const noVaults: VaultDirectory = {
  defaultName: () => "default",
  visible: () => [],
  get: () => {
    throw new ToolError("unknown_vault", "No vault is served.");
  },
};

/** Without a built CLI: the HTTP and MCP layers in-process, no tools, no vaults. */
async function startInProcess(): Promise<ServerUnderTest> {
  const logger = { log: (): void => {} };
  const users = new UserStore([defaultUser(TOKEN)]);
  const handleMcp = createMcpRequestHandler({
    tools: [],
    directoryFor: () => noVaults,
    logger,
    maxResponseBytes: 256 * 1024,
    version: "0.0.0-test",
    now: Date.now,
  });
  return startHttpServer({
    host: "127.0.0.1",
    port: 0,
    authenticate: (token) => users.authenticate(token),
    handleMcp,
    health: () => ({ status: "ok" }),
    logger,
    drainMs: 200,
  });
}

async function startServer(workDir: string): Promise<ServerUnderTest> {
  if (!existsSync(CLI)) return startInProcess();
  const vault = path.join(workDir, "edge-vault");
  await cp(EDGE_VAULT, vault, { recursive: true });
  const args = ["serve", "--vault", vault, "--data", path.join(workDir, "data"), "--port", "0"];
  return startCliServer(CLI, args, { SECONDBRAIN_TOKEN: TOKEN }, 20_000);
}

test("the conformance suite passes except for the scenarios that need its own fixtures", { timeout: 120_000 }, async () => {
  const workDir = await mkdtemp(path.join(tmpdir(), "sbm-conformance-"));
  const server = await startServer(workDir);
  const proxy = await startBearerProxy(server.port, TOKEN);
  try {
    const run = await runProcess(process.execPath, [SUITE, "server", "--url", proxy.url, "--expected-failures", BASELINE], 100_000);
    assert.equal(run.code, 0, run.output);
    assert.match(run.output, /Baseline check passed/);
  } finally {
    await proxy.close();
    await server.close();
    await rm(workDir, { recursive: true, force: true });
  }
});

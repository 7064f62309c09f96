// The official MCP conformance suite against our server, behind a proxy that adds the bearer token,
// once per protocol era: 2025-11-25 (initialize) and 2026-07-28 (server/discover, the per-request
// envelope). Scenarios that need the suite's own fixtures are listed, with reasons, in
// expected-failures-<revision>.yml.
import { existsSync } from "node:fs";
import { cp, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { runProcess, startBearerProxy, startCliServer, suiteNodeOptions, type ServerUnderTest } from "./harness";
import { EDGE_VAULT } from "../support/vaults";

const ROOT = path.resolve(__dirname, "../..");
const CLI = path.join(ROOT, "dist/cli.js");
const SUITE = path.join(ROOT, "node_modules/@modelcontextprotocol/conformance/dist/index.js");
const TOKEN = "conformance-token-0123456789";

function baseline(revision: string): string {
  return path.join(__dirname, `expected-failures-${revision}.yml`);
}

async function startServer(workDir: string): Promise<ServerUnderTest> {
  if (!existsSync(CLI)) throw new Error("dist/cli.js is missing: run `npm run build` (npm test does it first)");
  const vault = path.join(workDir, "edge-vault");
  await cp(EDGE_VAULT, vault, { recursive: true });
  const args = ["serve", "--vault", vault, "--data", path.join(workDir, "data"), "--port", "0"];
  return startCliServer(CLI, args, { SECONDBRAIN_TOKEN: TOKEN }, 20_000);
}

let workDir: string;
let server: ServerUnderTest;
let proxy: Awaited<ReturnType<typeof startBearerProxy>>;

before(async () => {
  workDir = await mkdtemp(path.join(tmpdir(), "sbm-conformance-"));
  server = await startServer(workDir);
  proxy = await startBearerProxy(server.port, TOKEN);
});

after(async () => {
  await proxy?.close();
  await server?.close();
  await rm(workDir, { recursive: true, force: true });
});

async function runSuite(selection: readonly string[], revision: string): Promise<string> {
  const args = [...suiteNodeOptions(), SUITE, "server", "--url", proxy.url, ...selection, "--expected-failures", baseline(revision)];
  const run = await runProcess(process.execPath, args, 150_000);
  assert.equal(run.code, 0, run.output);
  assert.match(run.output, /Baseline check passed/);
  return run.output;
}

test("conformance, 2025-11-25: every scenario passes except those that need the suite's own fixtures", { timeout: 180_000 }, async () => {
  const output = await runSuite(["--spec-version", "2025-11-25"], "2025-11-25");
  assert.match(output, /server-initialize: \d+ passed, 0 failed/);
});

test("conformance, 2026-07-28: every required scenario passes except those that need the suite's own fixtures", { timeout: 180_000 }, async () => {
  const output = await runSuite(["--requirements", "2026-07-28"], "2026-07-28");
  for (const scenario of ["caching", "http-header-validation", "sep-2164-resource-not-found", "tools-list", "dns-rebinding-protection"]) {
    assert.match(output, new RegExp(`✓ ${scenario}: [1-9]\\d* passed, 0 failed`), `${scenario} ran and passed`);
  }
});

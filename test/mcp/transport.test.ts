// Stateless Streamable HTTP: no session id issued, a client's one ignored, instructions at initialize.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { LATEST_PROTOCOL_VERSION } from "@modelcontextprotocol/sdk/types.js";
import { call, startMcpServer, startVaults, WRITER_TOKEN, type McpTestServer, type TestVaults } from "./harness";

let vaults: TestVaults;
let server: McpTestServer;

before(async () => {
  vaults = await startVaults();
  server = await startMcpServer(vaults.registry);
});
after(async () => {
  await server.close();
  await vaults.stop();
});

function post(body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(server.http.url, {
    method: "POST",
    headers: {
      Authorization: `Bearer ${WRITER_TOKEN}`,
      "Content-Type": "application/json",
      Accept: "application/json, text/event-stream",
      ...headers,
    },
    body: JSON.stringify(body),
  });
}

const initialize = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: LATEST_PROTOCOL_VERSION, capabilities: {}, clientInfo: { name: "raw", version: "1" } },
};

test("initialize issues no session id and declares the capabilities", async () => {
  const response = await post(initialize);
  assert.equal(response.status, 200);
  assert.equal(response.headers.get("mcp-session-id"), null);
  assert.equal(response.headers.get("cache-control"), "no-store");
  const body = (await response.json()) as { result: { capabilities: Record<string, unknown>; serverInfo: { name: string } } };
  assert.deepEqual(Object.keys(body.result.capabilities).sort(), ["completions", "logging", "prompts", "resources", "tools"]);
  assert.equal(body.result.serverInfo.name, "secondbrain-mcp");
});

test("a client-sent Mcp-Session-Id is ignored, and no initialize is needed first", async () => {
  const headers = { "Mcp-Session-Id": "made-up-session", "MCP-Protocol-Version": LATEST_PROTOCOL_VERSION };
  const response = await post({ jsonrpc: "2.0", id: 2, method: "tools/list" }, headers);
  assert.equal(response.status, 200);
  assert.equal(response.headers.get("mcp-session-id"), null);
  const body = (await response.json()) as { result: { tools: unknown[] } };
  assert.ok(body.result.tools.length > 0);
});

test("a notification alone is accepted with 202", async () => {
  const response = await post({ jsonrpc: "2.0", method: "notifications/initialized" });
  assert.equal(response.status, 202);
});

test("logging/setLevel and ping answer with an empty result", async () => {
  const client = await server.connect(WRITER_TOKEN);
  assert.deepEqual(await client.setLoggingLevel("info"), {});
  assert.deepEqual(await client.ping(), {});
});

test("the client name reaches the tool although initialize was another request: remembered per user, or from _meta.clientInfo", async () => {
  const client = await server.connect(WRITER_TOKEN, "Claude Code");
  const plain = await call(client, "probe_read", { path: "wiki/index" });
  assert.equal(plain.structured.client, "Claude Code", "the name this user initialized with");
  const result = await client.callTool({ name: "probe_read", arguments: { path: "wiki/index" }, _meta: { clientInfo: { name: "Cursor" } } });
  assert.equal((result.structuredContent as { client: string }).client, "Cursor", "_meta.clientInfo wins");
  const other = await server.connect(WRITER_TOKEN, "Codex");
  assert.equal((await call(other, "probe_read", { path: "wiki/index" })).structured.client, "Codex", "the latest initialize of the user counts");
});

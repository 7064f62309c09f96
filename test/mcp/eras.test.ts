// Both protocol eras on one endpoint, chosen per request: the official 2.x client in auto mode
// negotiates 2026-07-28 through server/discover, the 1.x client still initializes on 2025-11-25, and
// each request is answered in the era it claims (resultType and cache TTLs only in the new one).
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from "@modelcontextprotocol/client";
import { Client as LegacyClient } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport as LegacyTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { startMcpServer, startVaults, TEST_TOOLS, WRITER_TOKEN, type McpTestServer, type TestVaults } from "./harness";

const MODERN = "2026-07-28";
const ENVELOPE = { "io.modelcontextprotocol/protocolVersion": MODERN, "io.modelcontextprotocol/clientCapabilities": {} };

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

interface Posted {
  method?: string;
  params?: { _meta?: Record<string, unknown> };
}

/** A fetch that keeps every JSON-RPC message a client posts. */
function recordingFetch(): { fetch: typeof fetch; posted: Posted[] } {
  const posted: Posted[] = [];
  return {
    posted,
    fetch: (input, init) => {
      if (typeof init?.body === "string") posted.push(...[JSON.parse(init.body) as Posted | Posted[]].flat());
      return fetch(input, init);
    },
  };
}

const auth = { headers: { Authorization: `Bearer ${WRITER_TOKEN}` } };

async function modernClient(name: string): Promise<{ client: ModernClient; posted: Posted[] }> {
  const recorder = recordingFetch();
  const client = new ModernClient({ name, version: "2.0.0" }, { versionNegotiation: { mode: "auto" } });
  await client.connect(new ModernTransport(new URL(server.http.url), { requestInit: auth, fetch: recorder.fetch }));
  return { client, posted: recorder.posted };
}

function post(body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(server.http.url, {
    method: "POST",
    headers: { Authorization: `Bearer ${WRITER_TOKEN}`, "Content-Type": "application/json", Accept: "application/json, text/event-stream", ...headers },
    body: JSON.stringify(body),
  });
}

function modernHeaders(method: string, name?: string): Record<string, string> {
  return { "MCP-Protocol-Version": MODERN, "Mcp-Method": method, ...(name !== undefined ? { "Mcp-Name": name } : {}) };
}

test("the 2.x client in auto mode negotiates 2026-07-28 through server/discover, without initialize", async () => {
  const { client, posted } = await modernClient("modern-client");
  try {
    assert.equal(client.getProtocolEra(), "modern");
    assert.equal(client.getNegotiatedProtocolVersion(), MODERN);
    assert.equal(client.getServerVersion()?.name, "secondbrain-mcp");
    assert.match(client.getInstructions() ?? "", /^Second Brain MCP serves Obsidian vaults/, "instructions come with server/discover");
    const { tools } = await client.listTools();
    assert.deepEqual(tools.map((tool) => tool.name), TEST_TOOLS.map((tool) => tool.name));
    const read = await client.callTool({ name: "probe_read", arguments: { path: "wiki/index" } });
    assert.equal((read.structuredContent as { path: string }).path, "wiki/index.md");
    assert.equal(posted[0]?.method, "server/discover");
    assert.ok(!posted.some((message) => message.method === "initialize"), "no initialize handshake");
    for (const message of posted) assert.equal(message.params?._meta?.["io.modelcontextprotocol/protocolVersion"], MODERN);
  } finally {
    await client.close();
  }
});

test("progress reaches a 2026-07-28 client: the response turns into a stream only when a notice is sent", async () => {
  const { client } = await modernClient("modern-progress");
  try {
    const seen: number[] = [];
    const result = await client.callTool({ name: "probe_progress", arguments: { steps: 3 } }, { onprogress: (notice) => seen.push(notice.progress) });
    assert.deepEqual(result.structuredContent, { steps: 3, reported: true });
    assert.deepEqual(seen, [1, 2, 3]);
  } finally {
    await client.close();
  }
});

test("the 1.x client still connects through initialize on 2025-11-25", async () => {
  const recorder = recordingFetch();
  const client = new LegacyClient({ name: "legacy-client", version: "1.0.0" });
  await client.connect(new LegacyTransport(new URL(server.http.url), { requestInit: auth, fetch: recorder.fetch }));
  try {
    assert.equal(recorder.posted[0]?.method, "initialize");
    assert.ok(!recorder.posted.some((message) => message.method === "server/discover"));
    assert.equal(client.getServerVersion()?.name, "secondbrain-mcp");
    assert.match(client.getInstructions() ?? "", /^Second Brain MCP serves Obsidian vaults/);
    const { tools } = await client.listTools();
    assert.equal(tools.length, TEST_TOOLS.length);
  } finally {
    await client.close();
  }
});

test("server/discover offers 2026-07-28 only, with the capabilities and instructions of initialize", async () => {
  const response = await post({ jsonrpc: "2.0", id: 1, method: "server/discover", params: { _meta: ENVELOPE } }, modernHeaders("server/discover"));
  assert.equal(response.status, 200);
  assert.equal(response.headers.get("mcp-session-id"), null);
  const { result } = (await response.json()) as { result: Record<string, unknown> };
  assert.deepEqual(result.supportedVersions, [MODERN]);
  assert.deepEqual(Object.keys(result.capabilities as object).sort(), ["completions", "logging", "prompts", "resources", "tools"]);
  assert.match(String(result.instructions), /Second Brain MCP serves/);
  assert.equal(result.resultType, "complete");
});

test("a 2026-07-28 list carries resultType and a private cache TTL; the same list in 2025 carries neither", async () => {
  const modern = await post({ jsonrpc: "2.0", id: 2, method: "tools/list", params: { _meta: ENVELOPE } }, modernHeaders("tools/list"));
  const modernList = ((await modern.json()) as { result: Record<string, unknown> }).result;
  assert.equal(modernList.resultType, "complete");
  assert.equal(modernList.ttlMs, 5 * 60_000);
  assert.equal(modernList.cacheScope, "private");
  const again = ((await (await post({ jsonrpc: "2.0", id: 3, method: "tools/list", params: { _meta: ENVELOPE } }, modernHeaders("tools/list"))).json()) as { result: unknown }).result;
  assert.deepEqual(again, modernList, "the same list, in the same order, every time");

  const legacyList = ((await (await post({ jsonrpc: "2.0", id: 4, method: "tools/list" })).json()) as { result: Record<string, unknown> }).result;
  assert.deepEqual(Object.keys(legacyList), ["tools"]);
  assert.deepEqual(legacyList.tools, modernList.tools);
});

test("2026-07-28 header checks: Mcp-Method and Mcp-Name must match the body, the version header must be there", async () => {
  const call = { jsonrpc: "2.0", id: 5, method: "tools/call", params: { name: "probe_read", arguments: { path: "wiki/index" }, _meta: ENVELOPE } };
  const wrongMethod = await post(call, modernHeaders("tools/list", "probe_read"));
  assert.equal(wrongMethod.status, 400);
  assert.equal(((await wrongMethod.json()) as { error: { code: number } }).error.code, -32020);
  const wrongName = await post(call, modernHeaders("tools/call", "probe_list"));
  assert.equal(wrongName.status, 400);
  assert.match(((await wrongName.json()) as { error: { message: string } }).error.message, /Mcp-Name header names "probe_list"/);
  const noVersion = await post(call, { "Mcp-Method": "tools/call", "Mcp-Name": "probe_read" });
  assert.equal(noVersion.status, 400);
  const right = await post(call, modernHeaders("tools/call", "probe_read"));
  assert.equal(right.status, 200);
  assert.equal(((await right.json()) as { result: { isError?: boolean } }).result.isError, undefined);
});

test("an unknown revision is refused naming 2026-07-28; an initialize naming it falls back to 2025-11-25", async () => {
  const future = { ...ENVELOPE, "io.modelcontextprotocol/protocolVersion": "2027-01-01" };
  const refused = await post({ jsonrpc: "2.0", id: 6, method: "tools/list", params: { _meta: future } }, { "MCP-Protocol-Version": "2027-01-01", "Mcp-Method": "tools/list" });
  assert.equal(refused.status, 400);
  assert.deepEqual(((await refused.json()) as { error: { data: unknown } }).error.data, { supported: [MODERN], requested: "2027-01-01" });
  const initialize = await post({ jsonrpc: "2.0", id: 7, method: "initialize", params: { protocolVersion: MODERN, capabilities: {}, clientInfo: { name: "eager", version: "1" } } });
  assert.equal(((await initialize.json()) as { result: { protocolVersion: string } }).result.protocolVersion, "2025-11-25");
});

test("the client named in history: a 2026-07-28 request's own clientInfo, a 2025 call the name its user initialized with", async () => {
  const legacy = await server.connect(WRITER_TOKEN, "Legacy Client");
  const { client: modern } = await modernClient("Modern Client");
  try {
    const viaModern = await modern.callTool({ name: "probe_read", arguments: { path: "wiki/index" } });
    assert.equal((viaModern.structuredContent as { client: string }).client, "Modern Client");
    const viaLegacy = await legacy.callTool({ name: "probe_read", arguments: { path: "wiki/index" } });
    assert.equal((viaLegacy.structuredContent as { client: string }).client, "Legacy Client", "modern requests do not replace the remembered 2025 name");
    const anonymous = await post(
      { jsonrpc: "2.0", id: 8, method: "tools/call", params: { name: "probe_read", arguments: { path: "wiki/index" }, _meta: ENVELOPE } },
      modernHeaders("tools/call", "probe_read"),
    );
    const { result } = (await anonymous.json()) as { result: { structuredContent: { client: unknown } } };
    assert.equal(result.structuredContent.client, null, "a 2026-07-28 request without clientInfo is not given another client's name");
  } finally {
    await modern.close();
  }
});

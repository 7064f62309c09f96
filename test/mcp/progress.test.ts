// Progress notifications reach a client that asked for them (the response becomes SSE for that
// request), while other requests keep plain JSON responses.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { wantsProgress } from "../../src/mcp/transport";
import { startMcpServer, startVaults, WRITER_TOKEN, type McpTestServer, type TestVaults } from "./harness";

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

test("a call with a progress token receives every notice, in order", async () => {
  const client = await server.connect(WRITER_TOKEN);
  const seen: Array<{ progress: number; total?: number; message?: string }> = [];
  const result = await client.callTool({ name: "probe_progress", arguments: { steps: 3 } }, undefined, {
    onprogress: (notice) => seen.push(notice),
  });
  assert.deepEqual(result.structuredContent, { steps: 3, reported: true });
  assert.deepEqual(seen.map((notice) => [notice.progress, notice.total, notice.message]), [
    [1, 3, "step 1"],
    [2, 3, "step 2"],
    [3, 3, "step 3"],
  ]);
});

test("a call without a token gets a JSON response and no progress callback", async () => {
  const response = await fetch(server.http.url, {
    method: "POST",
    headers: { Authorization: `Bearer ${WRITER_TOKEN}`, "Content-Type": "application/json", Accept: "application/json, text/event-stream" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "probe_progress", arguments: { steps: 1 } } }),
  });
  assert.match(response.headers.get("content-type") ?? "", /application\/json/);
  const body = (await response.json()) as { result: { structuredContent: unknown } };
  assert.deepEqual(body.result.structuredContent, { steps: 1, reported: false });
});

test("only requests that carry a progress token ask for a stream", () => {
  assert.equal(wantsProgress({ params: { _meta: { progressToken: 7 } } }), true);
  assert.equal(wantsProgress([{ params: {} }, { params: { _meta: { progressToken: "t" } } }]), true);
  assert.equal(wantsProgress({ params: { _meta: {} } }), false);
  assert.equal(wantsProgress(null), false);
});

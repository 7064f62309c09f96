// tools/list and tools/call through the official SDK client over real HTTP, on real engines.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { listedTool, MAX_RESULT_SIZE_META } from "../../src/mcp/tools";
import { utf8Bytes } from "../../src/mcp/truncate";
import {
  call,
  probeCrash,
  READER_TOKEN,
  startMcpServer,
  startVaults,
  TEST_TOOLS,
  WRITER_TOKEN,
  type McpTestServer,
  type TestVaults,
} from "./harness";

let vaults: TestVaults;
let server: McpTestServer;

before(async () => {
  vaults = await startVaults();
  server = await startMcpServer(vaults.registry, { maxResponseBytes: 4096 });
});
after(async () => {
  await server.close();
  await vaults.stop();
});

test("a writer sees every tool with title, description, schema and annotations", async () => {
  const { tools } = await (await server.connect(WRITER_TOKEN)).listTools();
  assert.deepEqual(tools.map((tool) => tool.name), TEST_TOOLS.map((tool) => tool.name));
  for (const tool of tools) {
    const definition = TEST_TOOLS.find((candidate) => candidate.name === tool.name)!;
    assert.equal(tool.title, definition.title);
    assert.equal(tool.description, definition.description);
    assert.deepEqual(tool.inputSchema, definition.input.jsonSchema);
    assert.deepEqual(tool.annotations, { title: definition.title, ...definition.annotations });
  }
});

test("a tool with large results declares the response limit as anthropic/maxResultSizeChars in tools/list; others declare nothing", async () => {
  const { tools } = await (await server.connect(WRITER_TOKEN)).listTools();
  for (const tool of tools) {
    if (tool.name === "probe_list") assert.deepEqual(tool._meta, { [MAX_RESULT_SIZE_META]: 4096 });
    else assert.equal(tool._meta, undefined, tool.name);
  }
  const probeList = TEST_TOOLS.find((tool) => tool.name === "probe_list")!;
  assert.deepEqual(listedTool(probeList, 10_000_000)._meta, { [MAX_RESULT_SIZE_META]: 500_000 }, "Claude Code's ceiling");
});

test("a result with images sends them as image content after its text, outside the JSON text and structuredContent", async () => {
  const result = await (await server.connect(WRITER_TOKEN)).callTool({ name: "probe_image", arguments: {} });
  const content = result.content as Array<{ type: string; text?: string; data?: string; mimeType?: string }>;
  assert.deepEqual(content.map((block) => block.type), ["text", "image"]);
  assert.deepEqual(JSON.parse(content[0]!.text!), { width: 1, height: 1 });
  assert.deepEqual(result.structuredContent, { width: 1, height: 1 });
  assert.equal(content[1]!.mimeType, "image/png");
  const bytes = Buffer.from(content[1]!.data!, "base64");
  assert.deepEqual([...bytes.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], "the client decodes a PNG");
});

test("a read-only user is not offered a mutating tool and is refused when calling it by name", async () => {
  const client = await server.connect(READER_TOKEN);
  const { tools } = await client.listTools();
  assert.ok(!tools.some((tool) => tool.name === "probe_write"));
  assert.ok(tools.some((tool) => tool.name === "probe_read"));
  const refused = await call(client, "probe_write", { path: "x.md", content: "text" });
  assert.equal(refused.isError, true);
  assert.deepEqual(refused.structured.error, { code: "read_only", message: refused.text, state: "not_applied", retry: "correct_request" });
  assert.match(refused.text, /read-only/);
});

test("success carries the result as indented JSON text and as structuredContent", async () => {
  const client = await server.connect(WRITER_TOKEN);
  const result = await call(client, "probe_read", { path: "wiki/index" });
  assert.equal(result.isError, false);
  assert.equal(result.structured.vault, "edge");
  assert.equal(result.structured.path, "wiki/index.md");
  assert.match(String(result.structured.content_hash), /^[0-9a-f]{32}$/);
  assert.equal(result.text, JSON.stringify(result.structured, null, 2));
});

test("a ToolError becomes isError with its message as the text and in structuredContent.error", async () => {
  const client = await server.connect(WRITER_TOKEN);
  const missing = await call(client, "probe_read", { path: "no/such-note" });
  assert.equal(missing.isError, true);
  assert.deepEqual(missing.structured.error, {
    code: "not_found",
    message: missing.text,
    state: "not_applied",
    retry: "correct_request",
    path: "no/such-note.md",
  });
  assert.match(missing.text, /does not exist/);
  const conflict = await call(client, "probe_write", { path: "wiki/index.md", content: "CONFLICT" });
  assert.deepEqual(conflict.structured.error, {
    code: "conflict",
    message: conflict.text,
    state: "not_applied",
    retry: "inspect_state",
    path: "wiki/index.md",
    actual_hash: "0123456789abcdef0123456789abcdef",
  });
  const unknownVault = await call(client, "probe_read", { vault: "nope", path: "x" });
  assert.equal((unknownVault.structured.error as { code: string }).code, "unknown_vault");
});

test("arguments are parsed by the tool's schema; a bad one is an invalid_argument error", async () => {
  const client = await server.connect(WRITER_TOKEN);
  const missing = await call(client, "probe_read", {});
  assert.deepEqual(missing.structured.error, { code: "invalid_argument", message: missing.text, state: "not_applied", retry: "correct_request", argument: "path" });
  assert.match(missing.text, /Missing required argument "path"/);
  const extra = await call(client, "probe_read", { path: "x", colour: "red" });
  assert.match(extra.text, /Unknown argument\(s\): colour/);
  assert.equal((extra.structured.error as { argument?: string }).argument, "colour", "the one unknown name");
  const extras = await call(client, "probe_read", { path: "x", colour: "red", size: 3 });
  assert.equal((extras.structured.error as { argument?: string }).argument, undefined, "several unknown names are in the message only");
  const outOfRange = await call(client, "probe_list", { count: -1 });
  assert.equal((outOfRange.structured.error as { argument?: string }).argument, "count");
  assert.equal((outOfRange.structured.error as { message?: string }).message, outOfRange.text);
});

test("an unknown tool names close matches and tools/list", async () => {
  const client = await server.connect(WRITER_TOKEN);
  const result = await call(client, "probe_raed", { path: "x" });
  assert.equal(result.isError, true);
  assert.equal((result.structured.error as { code: string }).code, "not_found");
  assert.match(result.text, /Unknown tool "probe_raed"\. Did you mean probe_read/);
  assert.match(result.text, /tools\/list/);
});

test("an unexpected exception is an internal error whose details stay out of the answer and the log", async () => {
  const client = await server.connect(WRITER_TOKEN);
  const secret = "tax-return-of-aunt-agatha";
  const result = await call(client, probeCrash.name, { secret });
  assert.equal(result.isError, true);
  assert.deepEqual(result.structured.error, { code: "internal", message: result.text, state: "unknown", retry: "inspect_state" });
  assert.ok(!JSON.stringify(result.structured).includes(secret));
  const debug = server.logs.find((record) => record.event === "tool_exception");
  assert.equal(debug?.level, "debug");
  assert.equal(debug?.error, "TypeError");
  assert.match(String(debug?.stack), /^\s+at /);
  assert.ok(!JSON.stringify(server.logs).includes(secret));
});

test("a result over max_response_bytes is cut to fit; its text begins with the note, and the note with the call for the rest", async () => {
  const client = await server.connect(WRITER_TOKEN);
  const result = await call(client, "probe_list", { count: 500 });
  assert.equal(result.isError, false);
  assert.ok(utf8Bytes(result.text) <= 4096, `${utf8Bytes(result.text)} bytes`);
  const entries = result.structured.entries as Array<{ path: string }>;
  const truncated = result.structured.response_truncated as Record<string, unknown>;
  assert.ok(entries.length > 10 && entries.length < 500);
  assert.equal(result.structured.returned, entries.length);
  assert.equal(result.structured.total, 500);
  assert.ok((truncated.actual_bytes as number) > 4096);
  assert.equal(truncated.allowed_bytes, 4096);
  assert.deepEqual(truncated.cut, [{ field: "entries", kept: entries.length, of: 500, unit: "items" }]);
  const hint = `The result was cut to fit the response limit of 4096 bytes (it was ${truncated.actual_bytes as number}), keeping entries: ${entries.length} of 500 items. For the rest, call probe_list again with offset: ${entries.length} and the same other arguments.`;
  assert.equal(truncated.hint, hint);
  assert.ok(result.text.startsWith(`{\n  "response_truncated": {\n    "hint": ${JSON.stringify(hint)},`), result.text.slice(0, 300));
  assert.equal(Object.keys(result.structured)[0], "response_truncated", "structuredContent carries it first too");
  const rest = await call(client, "probe_list", { count: 500, offset: entries.length });
  assert.equal((rest.structured.entries as Array<{ path: string }>)[0]!.path, `notes/entry-${entries.length}.md`);
  assert.match(String((rest.structured.response_truncated as { hint: string }).hint), new RegExp(`offset: ${entries.length + (rest.structured.returned as number)} `));
  const small = await call(client, "probe_list", { count: 3 });
  assert.equal(small.structured.response_truncated, undefined);
});

test("a cut text says what is missing and that no offset reaches it", async () => {
  const client = await server.connect(WRITER_TOKEN);
  const result = await call(client, "probe_list", { count: 0, text_chars: 10_000 });
  assert.ok(utf8Bytes(result.text) <= 4096);
  const truncated = result.structured.response_truncated as { hint: string; cut: Array<{ field: string; unit: string }> };
  assert.deepEqual(truncated.cut.map((record) => [record.field, record.unit]), [["text", "chars"]]);
  assert.match(truncated.hint, /keeping text: \d+ of 10000 characters\. The rest is not in this result: narrow the call/);
  assert.ok(result.text.startsWith('{\n  "response_truncated": {\n    "hint": "The result was cut'));
});

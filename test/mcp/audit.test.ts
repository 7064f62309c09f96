// The audit line of each tool call (SPEC §11): the fields, and no argument value but vault and path;
// a failure as its code and the argument's name, never its text (SPEC §15).
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { ToolError } from "../../src/core/errors";
import { argumentAtFault, toolCallLine } from "../../src/mcp/audit";
import { utf8Bytes } from "../../src/mcp/truncate";
import { call, READER_TOKEN, startMcpServer, startVaults, WRITER_TOKEN, type McpTestServer, type TestVaults } from "./harness";

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

function toolCalls(): Array<Record<string, unknown>> {
  return server.logs.filter((record) => record.event === "tool_call");
}

test("each tool call writes one line with who, what, where, how long, how much", async () => {
  const client = await server.connect(WRITER_TOKEN);
  const before = Date.now();
  const result = await call(client, "probe_read", { vault: "side", path: "ideas/second", query: "private words here" });
  const line = toolCalls().at(-1)!;
  assert.equal(line.level, "info");
  assert.equal(line.tool, "probe_read");
  assert.equal(line.user, "writer");
  assert.equal(line.vault, "side");
  assert.equal(line.path, "ideas/second");
  assert.equal(line.query_chars, "private words here".length);
  assert.ok(typeof line.ts === "number" && line.ts >= before && line.ts <= Date.now());
  assert.ok(typeof line.duration_ms === "number" && line.duration_ms >= 0);
  assert.equal(line.bytes, utf8Bytes(result.text));
  assert.equal(line.error, undefined);
  assert.ok(!JSON.stringify(line).includes("private words"));
});

test("the vault falls back to the one the result names; count comes from returned", async () => {
  const client = await server.connect(WRITER_TOKEN);
  await call(client, "probe_list", { count: 7 });
  const line = toolCalls().at(-1)!;
  assert.equal(line.vault, "edge");
  assert.equal(line.count, 7);
});

test("write calls log dry_run and the path, never the content, also when they fail", async () => {
  const client = await server.connect(WRITER_TOKEN);
  const content = "Dear diary, the password to the shed is under the flowerpot.";
  await call(client, "probe_write", { path: "journal/today.md", content, dry_run: true });
  const ok = toolCalls().at(-1)!;
  assert.equal(ok.dry_run, true);
  assert.equal(ok.path, "journal/today.md");
  await call(client, "probe_write", { path: "journal/today.md", content: `CONFLICT ${content}` });
  const failed = toolCalls().at(-1)!;
  assert.equal(failed.level, "warn");
  assert.equal(failed.error, "conflict");
  const reader = await server.connect(READER_TOKEN);
  await call(reader, "probe_write", { path: "journal/today.md", content });
  assert.equal(toolCalls().at(-1)!.error, "read_only");
  for (const line of server.logs) assert.ok(!JSON.stringify(line).includes("flowerpot"), JSON.stringify(line));
});

test("a failure is logged as its code and the argument's name; the value the caller is told of is not", async () => {
  const client = await server.connect(WRITER_TOKEN);
  const result = await call(client, "probe_list", { count: "many secret notes" });
  assert.match(result.text, /many secret notes/, "the caller is told what it sent");
  const line = toolCalls().at(-1)!;
  assert.equal(line.error, "invalid_argument");
  assert.equal(line.argument, "count");
  assert.ok(!JSON.stringify(line).includes("secret"));
  assert.ok(!JSON.stringify(line).includes("must be"), "no error text at all");
});

test("an absolute path sent as the path is not logged", async () => {
  const client = await server.connect(WRITER_TOKEN);
  await call(client, "probe_read", { path: "/home/someone/private/diary.md" });
  await call(client, "probe_read", { path: "C:\\Users\\someone\\diary.md" });
  for (const line of toolCalls().slice(-2)) assert.equal(line.path, undefined, JSON.stringify(line));
});

test("argumentAtFault names a declared argument the message quotes or, if passed, mentions", () => {
  const declared = ["vault", "path", "query", "count", "glob"];
  assert.equal(argumentAtFault('Argument "count" must be an integer; got "many".', declared, { count: "many" }), "count");
  assert.equal(argumentAtFault("The `glob` is too long.", declared, {}), "glob");
  assert.equal(argumentAtFault("The query has an opening quote without a closing one: close the quote: \"x\".", declared, { query: '"x' }), "query");
  assert.equal(argumentAtFault("The query has an opening quote.", declared, {}), undefined, "a word is an argument only when it was passed");
  assert.equal(argumentAtFault('Unknown operator "bogus" for property "secret".', declared, { where: {} }), undefined, "only declared names");
  assert.equal(argumentAtFault("The query-less form", declared, { query: "x" }), undefined);
});

test("an error's own argument is logged by its declared name; a name the caller made up is not", () => {
  const declared = ["path", "tags"];
  const item = new ToolError("invalid_argument", 'Argument "tags" must be a list of strings; got an item that is 3.', { details: { argument: "tags[2]" } });
  assert.equal(toolCallLine({ tool: "t", user: "u", declared, args: {}, error: item, argument: "tags[2]", startedAt: 0, finishedAt: 1, bytes: 9 }).argument, "tags");
  const unknown = new ToolError("invalid_argument", "Unknown argument(s): secret_name. Accepted: path, tags.", { details: { argument: "secret_name" } });
  const line = toolCallLine({ tool: "t", user: "u", declared, args: { path: "a.md", secret_name: 1 }, error: unknown, argument: "secret_name", startedAt: 0, finishedAt: 1, bytes: 9 });
  assert.equal(line.argument, undefined, "neither the made-up name nor a guess from the accepted list");
});

test("a host's file-system error is logged with its code as the cause, and nothing else of it", () => {
  const error = new ToolError("forbidden", "permission denied: notes/x.md — the server's user may not write this file", { details: { path: "notes/x.md", cause: "EACCES" } });
  const line = toolCallLine({ tool: "note_edit", user: "u", declared: ["path"], args: { path: "notes/x.md" }, error, startedAt: 0, finishedAt: 1, bytes: 9 });
  assert.deepEqual(
    { error: line.error, cause: line.cause, path: line.path, argument: line.argument },
    { error: "forbidden", cause: "EACCES", path: "notes/x.md", argument: undefined },
  );
});

test("toolCallLine counts a bare list when there is no returned or total", () => {
  const line = toolCallLine({
    tool: "t",
    user: "u",
    args: {},
    result: { vault: "v", hits: [1, 2, 3] },
    startedAt: 10,
    finishedAt: 25,
    bytes: 99,
  });
  assert.deepEqual(line, { ts: 10, level: "info", event: "tool_call", tool: "t", user: "u", vault: "v", duration_ms: 15, count: 3, bytes: 99 });
  const internal = toolCallLine({ tool: "t", user: "u", args: {}, error: new ToolError("internal", "boom"), startedAt: 0, finishedAt: 0, bytes: 4 });
  assert.equal(internal.level, "error");
});

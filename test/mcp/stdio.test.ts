// The line transport of `serve --stdio`: a line over the limit is answered and dropped as it streams
// in, the session goes on, the end of the input closes it once, after the answers in flight.
import { test } from "node:test";
import assert from "node:assert/strict";
import { PassThrough } from "node:stream";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { LineTransport, sniffRequestId } from "../../src/mcp/stdio";

const LIMIT = 64 * 1024;

interface Wired {
  transport: LineTransport;
  input: PassThrough;
  received: JSONRPCMessage[];
  sent: Array<Record<string, unknown>>;
  closes: () => number;
}

async function wired(drainMs = 1000): Promise<Wired> {
  const input = new PassThrough();
  const output = new PassThrough();
  const sent: Array<Record<string, unknown>> = [];
  let rest = "";
  output.setEncoding("utf8").on("data", (chunk: string) => {
    rest += chunk;
    const lines = rest.split("\n");
    rest = lines.pop() ?? "";
    for (const line of lines) sent.push(JSON.parse(line) as Record<string, unknown>);
  });
  const transport = new LineTransport({ input, output, maxLineBytes: LIMIT, drainMs });
  const received: JSONRPCMessage[] = [];
  let closes = 0;
  transport.onmessage = (message) => received.push(message);
  transport.onclose = () => (closes += 1);
  await transport.start();
  return { transport, input, received, sent, closes: () => closes };
}

async function until(condition: () => boolean, what: string, timeoutMs = 2000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

function call(id: number, padding = 0): string {
  return JSON.stringify({ method: "tools/call", params: { name: "attachment_put", arguments: { path: "a.png", data_base64: "A".repeat(padding) } }, jsonrpc: "2.0", id });
}

test("a line over the limit is answered with -32600 naming the limit, and the next line is served", async () => {
  const { input, received, sent } = await wired();
  input.write(call(7, LIMIT) + "\n" + call(8) + "\n");
  await until(() => sent.length === 1 && received.length === 1, "the refusal and the next message");
  const refusal = sent[0] as { id: unknown; error: { code: number; message: string } };
  assert.equal(refusal.id, 7, "the id of the refused request, so the client's call ends at once");
  assert.equal(refusal.error.code, -32600);
  assert.match(refusal.error.message, /at most 65,536 bytes/);
  assert.match(refusal.error.message, /was 65,6\d\d bytes/);
  assert.equal((received[0] as { id: number }).id, 8);
});

test("a line exactly at the limit is taken, one byte more is not", async () => {
  const { input, received, sent } = await wired();
  const envelope = call(1).length;
  input.write(call(1, LIMIT - envelope) + "\n");
  input.write(call(2, LIMIT - envelope + 1) + "\n");
  await until(() => received.length + sent.length === 2, "both lines handled");
  assert.deepEqual(received.map((message) => (message as { id: number }).id), [1]);
  assert.equal(sent[0]?.id, 2);
});

test("an oversized line is dropped as it streams in: the buffer never holds more than the limit", async () => {
  const { transport, input, received, sent } = await wired();
  const chunk = Buffer.alloc(4096, "x");
  let most = 0;
  input.write('{"jsonrpc":"2.0","id":"big","method":"tools/call","params":{"x":"');
  for (let written = 0; written < 40 * LIMIT; written += chunk.length) {
    input.write(chunk);
    await new Promise((resolve) => setImmediate(resolve));
    most = Math.max(most, transport.bufferedBytes);
  }
  input.write('"}}\n{"jsonrpc":"2.0","id":3,"method":"ping"}\n');
  await until(() => sent.length === 1 && received.length === 1, "the refusal and the ping");
  assert.ok(most <= LIMIT, `held ${most} bytes`);
  assert.equal(transport.bufferedBytes, 0);
  assert.equal(sent[0]?.id, "big", "the id is read from the line's first bytes");
  assert.equal((received[0] as { id: number }).id, 3);
});

test("an oversized line without a readable id is answered with id null", async () => {
  const { input, sent } = await wired();
  input.write("x".repeat(LIMIT + 10) + "\n");
  await until(() => sent.length === 1, "the refusal");
  assert.equal(sent[0]?.id, null);
  assert.equal((sent[0]?.error as { code: number }).code, -32600);
});

test("the request id is read only where a top-level member can stand", () => {
  assert.equal(sniffRequestId('{"method":"x","params":{"a":1', ',"jsonrpc":"2.0","id":12}'), 12);
  assert.equal(sniffRequestId('{"jsonrpc":"2.0","id":"r-1","method":"x"', "zzz}}"), "r-1");
  assert.equal(sniffRequestId('{"id":4,"method":"x"', "zzz}}"), 4);
  assert.equal(sniffRequestId('{"method":"x","params":{"id":5', '"params":{"id":5}}'), null, "a nested id ends in two braces");
  assert.equal(sniffRequestId('{"method":"x","params":{"arguments":{"id":6,', "x"), null, "a nested id at the start is not read");
  assert.equal(sniffRequestId("xxxx", "xxxx"), null);
});

test("lines split across chunks, several in one chunk, CRLF and blank lines", async () => {
  const { input, received } = await wired();
  const one = '{"jsonrpc":"2.0","id":1,"method":"ping"}';
  input.write(one.slice(0, 10));
  input.write(one.slice(10) + "\r\n\n" + '{"jsonrpc":"2.0","id":2,"method":"ping"}\n{"jsonrpc":"2.0","method":"notifications/initialized"}\n');
  await until(() => received.length === 3, "three messages");
  assert.deepEqual(received.map((message) => ("id" in message ? message.id : "note")), [1, 2, "note"]);
});

test("a line that is not JSON, or not JSON-RPC, is answered and the session goes on", async () => {
  const { input, received, sent } = await wired();
  input.write('{"jsonrpc":"2.0","id":1,\n{"jsonrpc":"1.0","id":2}\n{"jsonrpc":"2.0","id":3,"method":"ping"}\n');
  await until(() => sent.length === 2 && received.length === 1, "two refusals and the ping");
  assert.deepEqual(sent.map((message) => [message.id, (message.error as { code: number }).code]), [[null, -32700], [2, -32600]]);
});

test("the end of the input closes the transport once, after the open requests are answered", async () => {
  const { transport, input, received, closes } = await wired();
  input.end('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{}}\n');
  await until(() => received.length === 1 && input.readableEnded, "the request and the end of the input");
  assert.equal(closes(), 0, "still open: the request has no answer yet");
  await transport.send({ jsonrpc: "2.0", id: 1, result: {} });
  await until(() => closes() === 1, "the close");
  await transport.close();
  await transport.close();
  assert.equal(closes(), 1, "onclose fires once, however often close() is called");
});

test("an open request that never gets its answer holds the close no longer than the drain time", async () => {
  const { input, closes } = await wired(50);
  const started = Date.now();
  input.end('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{}}\n');
  await until(() => closes() === 1, "the close");
  assert.ok(Date.now() - started < 1000);
});

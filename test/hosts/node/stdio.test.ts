// `serve --stdio` of the built CLI: an oversized line is refused while the session goes on, the
// process exits promptly and cleanly when its input ends or on SIGTERM/SIGINT, and a 2026-07-28
// client is served as well as a 2025 one.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, readdirSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { CLI } from "../../support/cli";
import { initialize, startStdioCli, type StdioCli } from "../../support/stdio";
import { EDGE_VAULT, tempVault, type TempVault } from "../../support/vaults";

const LIMIT = 8 * 1024 * 1024;
const EXIT_DEADLINE_MS = 2000;

async function started(vault: TempVault): Promise<StdioCli> {
  const cli = await startStdioCli(["--vault", `edge=${vault.dir}`, "--data", vault.dataDir, "--no-history"]);
  await cli.waitForLog(/"event":"startup"/);
  return cli;
}

function putLine(id: number, file: string, base64: string): string {
  return JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "attachment_put", arguments: { path: file, data_base64: base64 } } });
}

/** An attachment_put line of exactly `bytes` bytes (the path's length makes up for base64's length rule). */
function putLineOf(id: number, bytes: number): { line: string; decoded: number; file: string } {
  for (const file of ["exact.png", "exact1.png"]) {
    const payload = bytes - putLine(id, file, "").length;
    if (payload % 4 === 1) continue;
    return { line: putLine(id, file, "A".repeat(payload)), decoded: Math.floor((payload * 3) / 4), file };
  }
  throw new Error("unreachable: two path lengths cover every remainder");
}

function noteRead(id: number): Record<string, unknown> {
  return { jsonrpc: "2.0", id, method: "tools/call", params: { name: "note_read", arguments: { path: "README.md" } } };
}

test("serve --stdio: a line over 8 MiB gets -32600 naming the limit, the exact limit is taken, the session goes on", async () => {
  const vault = tempVault(EDGE_VAULT);
  const cli = await started(vault);
  try {
    await initialize(cli);
    const exact = putLineOf(10, LIMIT);
    assert.equal(Buffer.byteLength(exact.line), LIMIT);
    await cli.write(exact.line);
    const stored = await cli.waitFor((message) => message.id === 10, 30_000, "the answer to the exact-limit put");
    assert.equal(stored.error, undefined, JSON.stringify(stored.error));
    assert.notEqual((stored.result as { isError?: boolean }).isError, true, JSON.stringify(stored.result));
    const storedAt = (stored.result as { structuredContent: { path: string } }).structuredContent.path;
    assert.equal(path.basename(storedAt), exact.file);
    assert.equal(statSync(path.join(vault.dir, storedAt)).size, exact.decoded);

    const over = putLineOf(11, LIMIT + 1);
    await cli.write(over.line);
    const refused = await cli.waitFor((message) => message.id === 11, 30_000, "the refusal of the oversized put");
    assert.equal(refused.error?.code, -32600);
    assert.match(refused.error?.message ?? "", /8,388,609 bytes.*at most 8,388,608 bytes \(8 MiB\)/);

    // The case of the report: one line over 10 MiB, which closed the SDK's transport for good.
    await cli.write(putLine(12, "huge.png", "A".repeat(10 * 1024 * 1024 + 4)));
    const huge = await cli.waitFor((message) => message.id === 12, 30_000, "the refusal of the 10 MiB put");
    assert.equal(huge.error?.code, -32600);

    await cli.write(noteRead(13));
    const read = await cli.waitFor((message) => message.id === 13, 10_000, "note_read after the refusals");
    assert.equal((read.result as { isError?: boolean }).isError, undefined, JSON.stringify(read.result).slice(0, 400));
    const attachments = readdirSync(path.dirname(path.join(vault.dir, storedAt)));
    assert.ok(!attachments.includes("huge.png") && (over.file === exact.file || !attachments.includes(over.file)), "nothing of the refused lines was stored");
    assert.doesNotMatch(cli.stderr(), /RangeError|Maximum call stack/);
  } finally {
    cli.kill();
    vault.cleanup();
  }
});

test("serve --stdio exits within 2 s once stdin closes, after answering what it was sent, and saves the index", async () => {
  const vault = tempVault(EDGE_VAULT);
  const cli = await started(vault);
  try {
    await initialize(cli);
    const created = await cli.request(1, "tools/call", { name: "note_create", arguments: { path: "inbox/from-stdio.md", content: "Written over stdio.\n" } });
    assert.notEqual((created.result as { isError?: boolean }).isError, true, JSON.stringify(created.result));
    // Like `printf '…' | secondbrain-mcp serve --stdio`: the last request and the end of input at once.
    cli.child.stdin.end(JSON.stringify(noteRead(2)) + "\n");
    const closedAt = Date.now();
    const exit = await cli.exited(EXIT_DEADLINE_MS);
    assert.ok(Date.now() - closedAt <= EXIT_DEADLINE_MS);
    assert.deepEqual(exit, { code: 0, signal: null });
    assert.ok(cli.messages.some((message) => message.id === 2 && message.result), "the request sent before the end was answered");
    assert.doesNotMatch(cli.stderr(), /RangeError|Maximum call stack/);

    // The index saved at the exit already holds the new note: the next start finds nothing added.
    const again = await startStdioCli(["--vault", `edge=${vault.dir}`, "--data", vault.dataDir, "--no-history"]);
    try {
      again.child.stdin.end();
      await again.waitForLog(/"event":"index_reconciled"/);
      const reconciled = JSON.parse(again.stderr().split("\n").find((line) => line.includes('"index_reconciled"'))!) as { added: number; unchanged: number };
      assert.equal(reconciled.added, 0, "the note written before the exit is in the saved index");
      assert.equal(reconciled.unchanged, 22);
      await again.exited(10_000);
    } finally {
      again.kill();
    }
  } finally {
    cli.kill();
    vault.cleanup();
  }
});

test("serve --stdio with stdin at its end from the start (< /dev/null) exits within 2 s", async () => {
  const vault = tempVault(EDGE_VAULT);
  const cli = await startStdioCli(["--vault", `edge=${vault.dir}`, "--data", vault.dataDir, "--no-history"]);
  try {
    cli.child.stdin.end();
    await cli.waitForLog(/"event":"startup"/);
    const readyAt = Date.now();
    assert.deepEqual(await cli.exited(EXIT_DEADLINE_MS), { code: 0, signal: null });
    assert.ok(Date.now() - readyAt <= EXIT_DEADLINE_MS);
  } finally {
    cli.kill();
    vault.cleanup();
  }
});

for (const signal of ["SIGTERM", "SIGINT"] as const) {
  test(`serve --stdio exits with 0 within 2 s on ${signal}, without a RangeError`, async () => {
    const vault = tempVault(EDGE_VAULT);
    const cli = await started(vault);
    try {
      await initialize(cli);
      cli.child.kill(signal);
      const sentAt = Date.now();
      assert.deepEqual(await cli.exited(EXIT_DEADLINE_MS), { code: 0, signal: null });
      assert.ok(Date.now() - sentAt <= EXIT_DEADLINE_MS);
      assert.doesNotMatch(cli.stderr(), /RangeError|Maximum call stack/);
      assert.match(cli.stderr(), new RegExp(`"event":"shutdown","transport":"stdio","reason":"${signal}"`));
    } finally {
      cli.kill();
      vault.cleanup();
    }
  });
}

const MODERN = "2026-07-28";
const ENVELOPE = {
  "io.modelcontextprotocol/protocolVersion": MODERN,
  "io.modelcontextprotocol/clientCapabilities": {},
  "io.modelcontextprotocol/clientInfo": { name: "Modern Stdio", version: "2.0.0" },
};

test("serve --stdio serves 2026-07-28: server/discover, then requests carrying the envelope, answered with resultType", async () => {
  const vault = tempVault(EDGE_VAULT);
  const cli = await started(vault);
  try {
    const discovered = await cli.request(1, "server/discover", { _meta: ENVELOPE });
    assert.deepEqual(discovered.result?.supportedVersions, [MODERN]);
    const listed = await cli.request(2, "tools/list", { _meta: ENVELOPE });
    assert.equal(listed.result?.resultType, "complete");
    assert.ok((listed.result?.tools as unknown[]).length > 0);
    const read = await cli.request(3, "tools/call", { name: "note_read", arguments: { path: "README.md" }, _meta: ENVELOPE });
    assert.equal(read.result?.resultType, "complete");
    assert.notEqual(read.result?.isError, true, JSON.stringify(read.result).slice(0, 400));
    // A 2025 opening on a connection pinned to 2026-07-28 is refused rather than served half-way.
    const late = await cli.request(4, "initialize", { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "late", version: "1" } });
    assert.ok(late.error, JSON.stringify(late));
    const after = await cli.request(5, "tools/call", { name: "note_read", arguments: { path: "README.md" }, _meta: ENVELOPE });
    assert.equal(after.result?.resultType, "complete", "the session goes on");
  } finally {
    cli.kill();
    vault.cleanup();
  }
});

test("serve --stdio: the 2.x client in auto mode negotiates 2026-07-28, the 2025 handshake still works", async () => {
  const vault = tempVault(EDGE_VAULT);
  const args = [CLI, "serve", "--stdio", "--vault", `edge=${vault.dir}`, "--data", vault.dataDir, "--no-history"];
  const modern = new Client({ name: "modern-stdio", version: "2.0.0" }, { versionNegotiation: { mode: "auto", probe: { timeoutMs: 30_000 } } });
  const legacy = new Client({ name: "legacy-stdio", version: "1.0.0" });
  try {
    await modern.connect(new StdioClientTransport({ command: process.execPath, args, stderr: "ignore" }));
    assert.equal(modern.getProtocolEra(), "modern");
    assert.equal(modern.getNegotiatedProtocolVersion(), MODERN);
    const modernRead = await modern.callTool({ name: "note_read", arguments: { path: "README.md" } });
    assert.notEqual(modernRead.isError, true);

    await legacy.connect(new StdioClientTransport({ command: process.execPath, args, stderr: "ignore" }));
    assert.equal(legacy.getProtocolEra(), "legacy");
    assert.equal(legacy.getNegotiatedProtocolVersion(), "2025-11-25");
    const legacyRead = await legacy.callTool({ name: "note_read", arguments: { path: "README.md" } });
    assert.notEqual(legacyRead.isError, true);
  } finally {
    await modern.close().catch(() => undefined);
    await legacy.close().catch(() => undefined);
    vault.cleanup();
  }
});

test("serve --stdio sends the server's instructions with the vault's INSTRUCTIONS.md and keeps to the config's max_response_bytes", async () => {
  const vault = tempVault(EDGE_VAULT);
  writeFileSync(path.join(vault.dir, "INSTRUCTIONS.md"), "Put every meeting note under Meetings/.\n");
  writeFileSync(path.join(vault.dir, "Long.md"), `# Long\n\n${"A paragraph of words that fills the note. ".repeat(2000)}\n`);
  const config = path.join(vault.dataDir, "config.yaml");
  mkdirSync(vault.dataDir, { recursive: true });
  writeFileSync(config, "limits:\n  max_response_bytes: 8192\n");
  const cli = await startStdioCli(["--vault", `edge=${vault.dir}`, "--data", vault.dataDir, "--no-history", "--config", config]);
  try {
    await cli.waitForLog(/"event":"startup"/);
    const opened = await cli.request(0, "initialize", { protocolVersion: "2025-11-25", capabilities: {}, clientInfo: { name: "stdio-test", version: "1.0.0" } });
    const instructions = typeof opened.result?.instructions === "string" ? opened.result.instructions : "";
    assert.match(instructions, /Vaults you can use: "edge"/);
    assert.match(instructions, /Put every meeting note under Meetings\//);
    await cli.write({ jsonrpc: "2.0", method: "notifications/initialized" });
    const read = await cli.request(1, "tools/call", { name: "note_read", arguments: { path: "Long.md" } });
    assert.notEqual(read.result?.isError, true, JSON.stringify(read.result).slice(0, 400));
    const bytes = Buffer.byteLength(JSON.stringify(read.result?.structuredContent));
    assert.ok(bytes <= 8192 && bytes > 4096, `the result is ${bytes} bytes`);
    assert.match(JSON.stringify(read.result?.structuredContent), /next_offset|byte_offset/);
  } finally {
    cli.kill();
    vault.cleanup();
  }
});

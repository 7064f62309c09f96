// attachment_read through the official SDK client over real HTTP, on a temp copy of edge-vault with
// real files written into it: text and log windows, cursors, the response limit, refusals, and the
// same path checks as every other read.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { hashToken, generateToken } from "../../src/auth/tokens";
import { defaultUser } from "../../src/auth/users";
import { FORMATS } from "../../src/core/formats";
import { callTool, startTestServer, type TestServer, type ToolCallResult } from "../support/server";
import { EDGE_VAULT, tempVault, type TempVault } from "../support/vaults";

let server: TestServer;
let vault: TempVault;
let other: TempVault;
const scopedToken = generateToken();

// A service log as one is written: timestamps, levels, multi-byte text, one line far longer than a window.
const logLines: string[] = [];
for (let i = 1; i <= 400; i++) {
  const level = i % 7 === 0 ? "ERROR" : "INFO";
  logLines.push(`2026-12-05T17:${String(i % 60).padStart(2, "0")}:00.000Z ${level} sync worker=${i % 4} note="Größe ${i}" ✓ 日本語`);
}
logLines.splice(200, 0, `2026-12-05T18:00:00.000Z DEBUG payload=${"é".repeat(3000)}`);
const LOG = `${logLines.join("\n")}\n`;

function errorOf(result: ToolCallResult): { code: string; message: string } {
  assert.equal(result.isError, true, result.text);
  return result.structured.error as { code: string; message: string };
}

before(async () => {
  vault = tempVault(EDGE_VAULT);
  other = tempVault(EDGE_VAULT);
  mkdirSync(path.join(vault.dir, "logs"), { recursive: true });
  writeFileSync(path.join(vault.dir, "logs/sync.log"), LOG);
  writeFileSync(path.join(vault.dir, "logs/notes.txt"), "first line\nsecond line\n");
  writeFileSync(path.join(vault.dir, "logs/blob.bin"), new Uint8Array([0x7f, 0x45, 0x4c, 0x46, 0, 0, 1, 2, 3]));
  writeFileSync(path.join(vault.dir, "Attachments/scan.pdf"), "%PDF-1.4\n%\u00e2\u00e3\n1 0 obj\n<<>>\nendobj\n");
  writeFileSync(path.join(other.dir, "secret.log"), "other vault only\n");
  symlinkSync(path.join(other.dir, "secret.log"), path.join(vault.dir, "logs/escape.log"));
  // Every call goes through the scoped, read-only user, which sees the vault edge only.
  server = await startTestServer({
    fixture: EDGE_VAULT,
    vault,
    name: "edge",
    users: [defaultUser(generateToken()), { name: "scoped", token_hashes: [hashToken(scopedToken)], vaults: ["edge"], read_only: true }],
    extra: { vaults: [{ name: "edge", root: vault.dir }, { name: "other", root: other.dir }] },
  });
});
after(async () => {
  await server.stop();
  vault.cleanup();
  other.cleanup();
});

async function read(args: Record<string, unknown>): Promise<ToolCallResult> {
  const client = await server.connect(scopedToken);
  return callTool(client, "attachment_read", args);
}

describe("attachment_read: text and logs", () => {
  test("a log read in windows through next_cursor comes back whole, each window ending at a line start", async () => {
    const windows: Array<Record<string, unknown>> = [];
    let cursor: string | undefined;
    do {
      const result = await read({ path: "logs/sync.log", max_bytes: 1024, ...(cursor ? { cursor } : {}) });
      assert.equal(result.isError, false, result.text);
      windows.push(result.structured);
      cursor = result.structured.next_cursor as string | undefined;
    } while (cursor !== undefined && windows.length < 200);
    assert.equal(windows.map((w) => w.content).join(""), LOG, "the windows concatenate to the exact file");
    assert.ok(windows.length > 10);
    const bytes = Buffer.from(LOG);
    for (const window of windows.slice(0, -1)) {
      const content = window.content as string;
      if (window.line_cut === undefined) assert.ok(content.endsWith("\n"), "a window without line_cut ends after a whole line");
      assert.equal(Buffer.byteLength(content), window.byte_count);
      assert.equal(window.format, "text");
      assert.equal(window.total_bytes, bytes.length);
    }
    // The 9 KB line is longer than a window: it is cut, and only at character boundaries (no U+FFFD).
    assert.ok(windows.some((w) => typeof w.line_cut === "string"), "the long line is cut and says so");
    assert.ok(!windows.some((w) => (w.content as string).includes("\uFFFD")));
    // first_line counts the lines before the window.
    const second = windows[1]!;
    const before = bytes.subarray(0, second.byte_offset as number).toString("utf8");
    assert.equal(second.first_line, before.split("\n").length);
  });

  test("byte_offset inside a line starts the window at that line's start", async () => {
    const offset = Buffer.byteLength(`${logLines[0]}\n${logLines[1]}\n`) + 10;
    const result = await read({ path: "logs/sync.log", byte_offset: offset, max_bytes: 256 });
    assert.equal(result.structured.byte_offset, offset - 10);
    assert.equal(result.structured.first_line, 3);
    assert.ok((result.structured.content as string).startsWith(logLines[2]!));
    assert.match(result.structured.aligned as string, /inside a line/);
  });

  test("a window over the response limit ends early at a line start and continues from the cursor", async () => {
    const copy = tempVault(EDGE_VAULT);
    mkdirSync(path.join(copy.dir, "logs"));
    writeFileSync(path.join(copy.dir, "logs/sync.log"), LOG);
    const small = await startTestServer({ fixture: EDGE_VAULT, vault: copy, name: "edge", extra: { maxResponseBytes: 4000 } });
    try {
      let cursor: string | undefined;
      const parts: string[] = [];
      let shortened = 0;
      do {
        const result = await small.call("attachment_read", { path: "logs/sync.log", max_bytes: 64 * 1024, ...(cursor ? { cursor } : {}) });
        assert.equal(result.isError, false, result.text);
        assert.ok(Buffer.byteLength(result.text) <= 4000, `${Buffer.byteLength(result.text)} bytes`);
        assert.equal(result.structured.response_truncated, undefined, "never cut by the generic truncation");
        if (result.structured.window_shortened !== undefined) shortened++;
        parts.push(result.structured.content as string);
        cursor = result.structured.next_cursor as string | undefined;
      } while (cursor !== undefined && parts.length < 500);
      assert.equal(parts.join(""), LOG);
      assert.ok(shortened > 0);
    } finally {
      await small.stop();
      copy.cleanup();
    }
  });

  test("a cursor is refused once the file changed, and a made-up cursor is refused as such", async () => {
    writeFileSync(path.join(vault.dir, "logs/growing.log"), "one\ntwo\nthree\n");
    const first = await read({ path: "logs/growing.log", max_bytes: 256 });
    assert.equal(first.structured.content, "one\ntwo\nthree\n");
    assert.equal(first.structured.next_cursor, undefined, "nothing remains, so no cursor");
    const big = "x".repeat(300) + "\n";
    writeFileSync(path.join(vault.dir, "logs/growing.log"), big.repeat(3));
    const opened = await read({ path: "logs/growing.log", max_bytes: 400 });
    const cursor = opened.structured.next_cursor as string;
    assert.equal(typeof cursor, "string");
    writeFileSync(path.join(vault.dir, "logs/growing.log"), big.repeat(4));
    const conflict = errorOf(await read({ path: "logs/growing.log", cursor }));
    assert.equal(conflict.code, "conflict");
    assert.match(conflict.message, /changed since/);
    assert.equal(errorOf(await read({ path: "logs/growing.log", cursor: "not-a-cursor" })).code, "invalid_argument");
    const stale = errorOf(await read({ path: "logs/growing.log", content_hash: "0".repeat(32) }));
    assert.equal(stale.code, "conflict");
  });

  test("an unknown binary file is refused, naming what can be read; a file without a reader but with text is read as text", async () => {
    const binary = errorOf(await read({ path: "logs/blob.bin" }));
    assert.equal(binary.code, "unsupported");
    assert.match(binary.message, /binary/);
    const text = await read({ path: "logs/notes.txt" });
    assert.equal(text.structured.content, "first line\nsecond line\n");
  });

  test("a PDF, until a PDF reader is registered, is refused by name and says attachment_read will read it", { skip: FORMATS.reader("pdf") !== undefined }, async () => {
    const refused = errorOf(await read({ path: "Attachments/scan.pdf" }));
    assert.equal(refused.code, "unsupported");
    assert.match(refused.message, /PDF file/);
    assert.match(refused.message, /attachment_read reads PDF files once/);
  });

  test("note_read of an attachment points to attachment_read", async () => {
    const result = await callTool(await server.connect(scopedToken), "note_read", { path: "logs/sync.log" });
    const error = errorOf(result);
    assert.equal(error.code, "invalid_argument");
    assert.match(error.message, /Call attachment_read/);
  });
});

describe("attachment_read: paths", () => {
  test("hostile paths, hidden files, a symlink out of the vault and another user's vault are refused", async () => {
    for (const hostile of ["../secret.log", "/etc/passwd", "logs/../../x.log", ".obsidian/app.json", "logs/.hidden.log", "C:\\x.log", "logs/\0.log"]) {
      assert.equal(errorOf(await read({ path: hostile })).code, "invalid_path", hostile);
    }
    const escaped = errorOf(await read({ path: "logs/escape.log" }));
    assert.equal(escaped.code, "invalid_path");
    assert.doesNotMatch(escaped.message, /other vault only/);
    assert.equal(errorOf(await read({ vault: "other", path: "secret.log" })).code, "unknown_vault");
    assert.equal(errorOf(await read({ path: "logs/missing.log" })).code, "not_found");
    assert.equal(errorOf(await read({ path: "logs" })).code, "not_found", "a folder is not a file");
  });
});

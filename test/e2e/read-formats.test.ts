// attachment_read through the official SDK client over real HTTP, on a temp copy of edge-vault with
// real files written into it: text and log windows, cursors, the response limit, refusals, and the
// same path checks as every other read.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { copyFileSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import path from "node:path";
import { hashToken, generateToken } from "../../src/auth/tokens";
import { defaultUser } from "../../src/auth/users";
import { callTool, startTestServer, type TestServer, type ToolCallResult } from "../support/server";
import { EDGE_VAULT, HELP_VAULT, tempVault, type TempVault } from "../support/vaults";

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

const HAR_FIXTURE = path.resolve(__dirname, "../fixtures/formats/chromium.har");

// A contact export as spreadsheets write one: BOM, CRLF, quoted commas, line breaks and quotes in fields.
const PEOPLE: string[][] = [];
for (let i = 1; i <= 250; i++) {
  PEOPLE.push([String(i), i % 3 === 0 ? `Müller, Jörg ${i}` : `Person ${i}`, i % 5 === 0 ? `Line one\r\nline "two" ${i}` : `note ${i}`, i % 2 === 0 ? "" : "✓"]);
}
function csvField(value: string, delimiter: string): string {
  return /["\r\n]/.test(value) || value.includes(delimiter) ? `"${value.replace(/"/g, '""')}"` : value;
}
function csvText(rows: string[][], delimiter: string): string {
  return rows.map((row) => row.map((field) => csvField(field, delimiter)).join(delimiter)).join("\r\n") + "\r\n";
}
const PEOPLE_HEADER = ["id", "name", "remarks", "done"];
const PEOPLE_CSV = `\uFEFF${csvText([PEOPLE_HEADER, ...PEOPLE], ",")}`;

// Records of an export: small ones and, every 50th, one with a large nested history.
const RECORDS = Array.from({ length: 500 }, (_, i) => ({
  id: i,
  title: `Record ${i}`,
  tags: ["a", "b"],
  ...(i % 50 === 0 ? { history: Array.from({ length: 200 }, (_, j) => ({ at: `2026-01-${String((j % 28) + 1).padStart(2, "0")}`, by: "sync", change: `edit ${j}` })) } : {}),
}));
const CONFIG = { name: "edge", "a/b": { "m~n": [1, 2, 3] }, nested: { deep: { value: "é" } }, empty: {} };

// The full example of the Help vault's "Bases syntax" page, as a base file.
const BASE_EXAMPLE = /```yaml\n(filters:[\s\S]*?)```/.exec(readFileSync(path.join(HELP_VAULT, "Bases/Bases syntax.md"), "utf8"))![1]!;
// A base with three views, one of them using a formula nobody defined.
const READING_BASE = [
  "filters:",
  "  and:",
  "    - file.inFolder(\"Books\")",
  "    - 'status != \"dropped\"'",
  "formulas:",
  "  pages_left: (pages - read).round()",
  "properties:",
  "  formula.pages_left:",
  "    displayName: Pages left",
  "views:",
  "  - type: table",
  "    name: Reading",
  "    order: [file.name, formula.pages_left]",
  "    summaries:",
  "      formula.pages_left: Sum",
  "  - type: cards",
  "    name: Covers",
  "    image: note.cover",
  "  - type: list",
  "    name: Finished",
  "    order: [file.name, formula.finished_on]",
  "",
].join("\n");

/** The files the tests read, written into a vault folder before its server starts. */
function populate(dir: string): void {
  mkdirSync(path.join(dir, "logs"), { recursive: true });
  mkdirSync(path.join(dir, "data"), { recursive: true });
  writeFileSync(path.join(dir, "logs/sync.log"), LOG);
  writeFileSync(path.join(dir, "data/people.csv"), PEOPLE_CSV);
  writeFileSync(path.join(dir, "data/umsatz.csv"), 'Kunde;Betrag;Datum\n"Schmidt; Co";1.234,50;05.12.2026\nMeier;99,00;06.12.2026\n');
  writeFileSync(path.join(dir, "data/table.tsv"), "a\tb\n1\t2\n3\t4\n");
  writeFileSync(path.join(dir, "data/records.json"), JSON.stringify(RECORDS, null, 2));
  writeFileSync(path.join(dir, "data/config.json"), JSON.stringify(CONFIG, null, 2));
  writeFileSync(path.join(dir, "data/broken.json"), '{\n  "name": "edge",\n  "list": [1, 2,]\n}\n');
  copyFileSync(HAR_FIXTURE, path.join(dir, "data/session.har"));
  writeFileSync(path.join(dir, "data/books.base"), BASE_EXAMPLE);
  writeFileSync(path.join(dir, "data/reading.base"), READING_BASE);
  writeFileSync(path.join(dir, "data/broken.base"), "views:\n  - type: table\n   name: x\n");
}

function errorOf(result: ToolCallResult): { code: string; message: string } & Record<string, unknown> {
  assert.equal(result.isError, true, result.text);
  return result.structured.error as { code: string; message: string } & Record<string, unknown>;
}

before(async () => {
  vault = tempVault(EDGE_VAULT);
  other = tempVault(EDGE_VAULT);
  populate(vault.dir);
  writeFileSync(path.join(vault.dir, "logs/notes.txt"), "first line\nsecond line\n");
  writeFileSync(path.join(vault.dir, "logs/blob.bin"), new Uint8Array([0x7f, 0x45, 0x4c, 0x46, 0, 0, 1, 2, 3]));
  writeFileSync(path.join(vault.dir, "Attachments/scan.pdf"), "%PDF-1.4\n%\u00e2\u00e3\n1 0 obj\n<<>>\nendobj\n");
  writeFileSync(path.join(vault.dir, "Attachments/scan.bmp"), Buffer.from([0x42, 0x4d, 0x1e, 0, 0, 0, 0, 0, 0, 0, 0x1a, 0, 0, 0]));
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
    populate(copy.dir);
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
      // Rows and JSON children shrink the same way: every page fits, nothing is cut, nothing is lost.
      const call = async (args: Record<string, unknown>) => {
        const result = await small.call("attachment_read", args);
        assert.ok(Buffer.byteLength(result.text) <= 4000, `${Buffer.byteLength(result.text)} bytes`);
        assert.equal(result.structured.response_truncated, undefined);
        return result;
      };
      const rows = await readAll({ path: "data/people.csv", limit: 1000 }, call);
      assert.ok(rows.some((page) => page.window_shortened !== undefined));
      assert.deepEqual(rows.flatMap((page) => page.rows as string[][]), PEOPLE);
      const records = await readAll({ path: "data/records.json", max_bytes: 64 * 1024 }, call);
      assert.deepEqual(records.flatMap((page) => (page.children as Array<{ key: string }>).map((child) => child.key)), RECORDS.map((_, i) => String(i)));
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

  test("an image format without a reader (BMP) is refused by name, saying which images can be read", async () => {
    const refused = errorOf(await read({ path: "Attachments/scan.bmp" }));
    assert.equal(refused.code, "unsupported");
    assert.match(refused.message, /is a BMP image file, which attachment_read cannot read \(it reads PNG, JPEG, GIF and WebP images\)/);
    assert.equal(refused.format, "BMP image");
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

/** Every page of a read, following next_cursor; `args` go with the first call only (the cursor holds them after). */
async function readAll(args: Record<string, unknown>, call: (args: Record<string, unknown>) => Promise<ToolCallResult> = read): Promise<Array<Record<string, unknown>>> {
  const pages: Array<Record<string, unknown>> = [];
  let cursor: string | undefined;
  do {
    const kept = Object.fromEntries(["limit", "max_bytes"].filter((key) => args[key] !== undefined).map((key) => [key, args[key]]));
    const result = await call(cursor ? { path: args.path, cursor, ...kept } : args);
    assert.equal(result.isError, false, result.text);
    pages.push(result.structured);
    cursor = result.structured.next_cursor as string | undefined;
  } while (cursor !== undefined && pages.length < 1000);
  return pages;
}

describe("attachment_read: CSV and TSV", () => {
  test("header and rows: quoted commas, line breaks and quotes parsed, BOM dropped, every row once across the cursor", async () => {
    const pages = await readAll({ path: "data/people.csv", limit: 60 });
    assert.equal(pages.length, 5);
    const first = pages[0]!;
    assert.equal(first.format, "csv");
    assert.equal(first.delimiter, ",");
    assert.deepEqual(first.header, PEOPLE_HEADER);
    assert.equal(first.columns, 4);
    assert.equal(first.total_rows, 250);
    assert.deepEqual(pages.map((page) => page.offset), [0, 60, 120, 180, 240]);
    assert.deepEqual(pages.flatMap((page) => page.rows as string[][]), PEOPLE);
    assert.equal(pages.at(-1)!.next_cursor, undefined);
  });

  test("offset and limit pick a window of rows without a cursor", async () => {
    const result = await read({ path: "data/people.csv", offset: 99, limit: 3 });
    assert.deepEqual(result.structured.rows, PEOPLE.slice(99, 102));
    assert.equal(result.structured.returned, 3);
    assert.equal(typeof result.structured.next_cursor, "string");
  });

  test("a semicolon export is sniffed (a semicolon inside quotes does not count), and .tsv is split at tabs", async () => {
    const umsatz = await read({ path: "data/umsatz.csv" });
    assert.equal(umsatz.structured.delimiter, ";");
    assert.deepEqual(umsatz.structured.header, ["Kunde", "Betrag", "Datum"]);
    assert.deepEqual(umsatz.structured.rows, [["Schmidt; Co", "1.234,50", "05.12.2026"], ["Meier", "99,00", "06.12.2026"]]);
    const tsv = await read({ path: "data/table.tsv" });
    assert.equal(tsv.structured.delimiter, "tab");
    assert.deepEqual(tsv.structured.rows, [["1", "2"], ["3", "4"]]);
    assert.equal(tsv.structured.total_rows, 2);
  });

  test("raw: true reads the CSV as text windows", async () => {
    const result = await read({ path: "data/table.tsv", raw: true });
    assert.equal(result.structured.format, "text");
    assert.equal(result.structured.content, "a\tb\n1\t2\n3\t4\n");
  });
});

describe("attachment_read: JSON and HAR", () => {
  test("a small document comes whole; a pointer with ~1 and ~0 escapes reads one member", async () => {
    const whole = await read({ path: "data/config.json" });
    assert.equal(whole.structured.format, "json");
    assert.equal(whole.structured.type, "object");
    assert.deepEqual(whole.structured.value, CONFIG);
    const member = await read({ path: "data/config.json", pointer: "/a~1b/m~0n/1" });
    assert.equal(member.structured.value, 2);
    assert.equal(member.structured.pointer, "/a~1b/m~0n/1");
  });

  test("a large array comes as windows of children: small ones inline, large ones summarised with their pointer", async () => {
    const pages = await readAll({ path: "data/records.json" });
    assert.ok(pages.length > 1, "more than one window");
    const children = pages.flatMap((page) => page.children as Array<Record<string, unknown>>);
    assert.deepEqual(children.map((child) => child.key), RECORDS.map((_, i) => String(i)), "each child exactly once, in order");
    for (const page of pages) assert.equal(page.size, 500);
    const large = children.find((child) => child.key === "50")!;
    assert.equal(large.value, undefined);
    assert.equal(large.type, "object");
    assert.equal(large.pointer, "/50");
    assert.deepEqual(large.first_keys, ["id", "title", "tags", "history"]);
    assert.deepEqual(children.find((child) => child.key === "51")!.value, RECORDS[51]);
    const history = await readAll({ path: "data/records.json", pointer: "/50/history", limit: 80, max_bytes: 2048 });
    assert.ok(history.length > 2);
    assert.deepEqual(history.flatMap((page) => (page.children as Array<{ value: unknown }>).map((child) => child.value)), RECORDS[50]!.history);
  });

  test("invalid JSON is refused with its line and column; a missing member names what is there", async () => {
    const broken = errorOf(await read({ path: "data/broken.json" }));
    assert.equal(broken.code, "invalid_argument");
    assert.match(broken.message, /not valid JSON: a comma before `]` \(trailing commas are not allowed\) at line 3, column 17/);
    const missing = errorOf(await read({ path: "data/config.json", pointer: "/nested/shallow" }));
    assert.equal(missing.code, "not_found");
    assert.match(missing.message, /\/nested is an object with the keys "deep"/);
    assert.equal(errorOf(await read({ path: "data/config.json", pointer: "nested" })).code, "invalid_argument");
  });

  test("JSON over 16 MiB is not parsed: refused with the way to read it as text", async () => {
    const line = `${JSON.stringify({ id: 1, text: "x".repeat(1000) })},\n`;
    writeFileSync(path.join(vault.dir, "data/huge.json"), `[\n${line.repeat(17 * 1024)}{}]\n`);
    const refused = errorOf(await read({ path: "data/huge.json" }));
    assert.equal(refused.code, "too_large");
    assert.match(refused.message, /raw: true/);
    const raw = await read({ path: "data/huge.json", raw: true, max_bytes: 4096 });
    assert.equal(raw.isError, false, raw.text);
    assert.equal(raw.structured.first_line, 1);
  });

  test("a HAR recorded from headless Chromium: an overview at the root, one line per request under /log/entries", async () => {
    const har = JSON.parse(readFileSync(HAR_FIXTURE, "utf8")) as { log: { entries: Array<{ request: { url: string } }> } };
    const root = await read({ path: "data/session.har" });
    assert.equal(root.structured.format, "har");
    const overview = root.structured.har as Record<string, unknown>;
    assert.equal(overview.entries, har.log.entries.length);
    assert.equal(overview.pages, 1);
    assert.match(overview.creator as string, /^Playwright /);
    const whole = await read({ path: "data/session.har", pointer: "/log/entries" });
    assert.equal((whole.structured.value as unknown[]).length, har.log.entries.length, "small enough to come whole");
    const entries = await readAll({ path: "data/session.har", pointer: "/log/entries", max_bytes: 1024 });
    const labels = entries.flatMap((page) => page.children as Array<{ label?: string }>).map((child) => child.label);
    const origin = new URL(har.log.entries[0]!.request.url).origin;
    assert.deepEqual(labels, [`GET ${origin}/ → 200`, `GET ${origin}/api/status?vault=edge → 200`, `GET ${origin}/export.csv → 200`, `GET ${origin}/missing.png → 404`]);
    const status = await read({ path: "data/session.har", pointer: "/log/entries/1/response/content/text" });
    assert.deepEqual(JSON.parse(status.structured.value as string), { vault: "edge", notes: 19, synced: true, pending: ["inbox/a.md", "inbox/b.md"] });
  });
});

describe("attachment_read: Bases", () => {
  test("the Help vault's example base comes as filters, formulas, properties, summaries and views", async () => {
    const result = await read({ path: "data/books.base" });
    assert.equal(result.isError, false, result.text);
    const body = result.structured;
    assert.equal(body.format, "base");
    assert.equal(body.problems, undefined);
    assert.deepEqual(body.formulas, { formatted_price: 'if(price, price.toFixed(2) + " dollars")', ppu: "(price / age).toFixed(2)" });
    assert.deepEqual(Object.keys(body.properties as object), ["status", "formula.formatted_price", "file.ext"]);
    assert.deepEqual(body.summaries, { customAverage: "values.mean().round(3)" });
    assert.equal(body.total_views, 1);
    const [view] = body.views as Array<Record<string, unknown>>;
    assert.equal(view!.name, "My table");
    assert.equal(view!.limit, 10);
    assert.deepEqual(view!.order, ["file.name", "file.ext", "note.age", "formula.ppu", "formula.formatted_price"]);
    assert.deepEqual((body.filters as { or: unknown[] }).or[0], 'file.hasTag("tag")');
  });

  test("views come in windows through the cursor; unknown view fields are kept; an undefined formula is a problem", async () => {
    const pages = await readAll({ path: "data/reading.base", limit: 1 });
    assert.deepEqual(pages.flatMap((page) => (page.views as Array<{ name: string }>).map((view) => view.name)), ["Reading", "Covers", "Finished"]);
    assert.equal((pages[1]!.views as Array<Record<string, unknown>>)[0]!.image, "note.cover");
    assert.deepEqual(pages[0]!.problems, ["`formula.finished_on` is used but no formula `finished_on` is defined under `formulas`"]);
  });

  test("a base whose YAML is broken is refused with the line", async () => {
    const error = errorOf(await read({ path: "data/broken.base" }));
    assert.equal(error.code, "invalid_argument");
    assert.match(error.message, /its YAML is invalid at line 3/);
    const raw = await read({ path: "data/broken.base", raw: true });
    assert.equal(raw.structured.content, "views:\n  - type: table\n   name: x\n");
  });
});

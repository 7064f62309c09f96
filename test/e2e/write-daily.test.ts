// note_from_template, journal, journal_range, capture, task_toggle and attachment_put through the
// official SDK client over real HTTP, on a temp copy of edge-vault; the attachment size limit through
// the tool handler on the same engine (32 MiB of base64 does not fit the HTTP body limit).
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { generateToken, hashToken } from "../../src/auth/tokens";
import { defaultUser } from "../../src/auth/users";
import { ToolError } from "../../src/core/errors";
import { attachmentPut, MAX_ATTACHMENT_BYTES } from "../../src/tools/write/attachment-put";
import { appendUnderHeading } from "../../src/tools/write/journal";
import { fillTemplate, slugify } from "../../src/tools/write/note-from-template";
import type { ToolContext } from "../../src/tools/types";
import { startTestServer, type TestServer } from "../support/server";
import { EDGE_VAULT } from "../support/vaults";

let server: TestServer;
// Own tokens, so a writer and a read-only user can both be passed at start.
const writerToken = generateToken();
const readerToken = generateToken();

before(async () => {
  server = await startTestServer({
    fixture: EDGE_VAULT,
    name: "edge",
    users: [defaultUser(writerToken), { name: "reader", token_hashes: [hashToken(readerToken)], vaults: [], read_only: true }],
  });
});
after(async () => {
  await server.stop();
});

async function call(name: string, args: Record<string, unknown>) {
  const client = await clientFor(writerToken);
  const result = await client.callTool({ name, arguments: args });
  const content = result.content as Array<{ text?: string }>;
  return { isError: result.isError === true, text: content.map((part) => part.text ?? "").join("\n"), structured: (result.structuredContent ?? {}) as Record<string, unknown> };
}

const clients = new Map<string, Awaited<ReturnType<TestServer["connect"]>>>();
async function clientFor(token: string) {
  let client = clients.get(token);
  if (!client) {
    client = await server.connect(token);
    clients.set(token, client);
  }
  return client;
}

/** The error object of a refused call; a ToolError's details sit beside code, state and retry. */
function errorOf(result: { structured: Record<string, unknown> }): { code: string; state: string; [detail: string]: unknown } {
  return result.structured.error as { code: string; state: string; [detail: string]: unknown };
}

function onDisk(relative: string): string {
  return readFileSync(path.join(server.vault.dir, relative), "utf8");
}

function pad(value: number): string {
  return String(value).padStart(2, "0");
}

function localDate(ms: number): string {
  const date = new Date(ms);
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}`;
}

function assertTrashCopy(result: { structured: Record<string, unknown> }, before: string | Buffer): void {
  const trash = result.structured.trash;
  assert.equal(typeof trash, "string", "an overwrite names its trash copy");
  const copy = path.join(server.vault.dir, trash as string);
  assert.ok(existsSync(copy), `${String(trash)} exists`);
  assert.deepEqual(readFileSync(copy), Buffer.isBuffer(before) ? before : Buffer.from(before));
}

describe("tools/list", () => {
  test("the six tools are listed with their annotations; read-only users keep only journal_range", async () => {
    const writer = await clientFor(writerToken);
    const tools = new Map((await writer.listTools()).tools.map((tool) => [tool.name, tool]));
    for (const name of ["note_from_template", "journal", "capture", "task_toggle", "attachment_put"]) {
      assert.equal(tools.get(name)?.annotations?.readOnlyHint, false, name);
    }
    assert.equal(tools.get("journal_range")?.annotations?.readOnlyHint, true);
    assert.equal(tools.get("attachment_put")?.annotations?.destructiveHint, true, "overwrite can replace a file");
    for (const name of ["note_from_template", "journal", "journal_range", "capture", "task_toggle", "attachment_put"]) {
      assert.equal((tools.get(name)?.inputSchema as { additionalProperties?: boolean }).additionalProperties, false, name);
    }
    assert.equal("dry_run" in (tools.get("capture")?.inputSchema.properties ?? {}), false, "capture has no dry run");

    const reader = await clientFor(readerToken);
    const visible = (await reader.listTools()).tools.map((tool) => tool.name);
    assert.ok(visible.includes("journal_range"));
    for (const name of ["journal", "capture", "task_toggle", "attachment_put", "note_from_template"]) assert.ok(!visible.includes(name), name);
  });
});

describe("note_from_template", () => {
  test("without a template it lists the templates folder of templates.json", async () => {
    const result = await call("note_from_template", {});
    assert.equal(result.isError, false);
    assert.equal(result.structured.vault, "edge");
    assert.equal(result.structured.folder, "templates/");
    assert.deepEqual(result.structured.templates, [{ name: "meeting", path: "templates/meeting.md" }]);
    assert.equal(result.structured.total, 1);
  });

  test("an unknown template is not_found and names the templates there are", async () => {
    const result = await call("note_from_template", { template: "standup", title: "x" });
    assert.equal(result.isError, true);
    assert.equal(errorOf(result).code, "not_found");
    assert.match(result.text, /meeting/);
  });

  test("instantiates meeting.md into inbox/, quoting the title safely and filling every placeholder", async () => {
    const title = 'Weekly sync: Q3 "plan"';
    const dry = await call("note_from_template", { template: "meeting", title, dry_run: true });
    assert.equal(dry.isError, false, dry.text);
    assert.equal(dry.structured.path, "inbox/Weekly sync Q3 plan.md");
    assert.equal(dry.structured.dry_run, true);
    assert.ok(!existsSync(path.join(server.vault.dir, "inbox/Weekly sync Q3 plan.md")), "a dry run writes nothing");

    const result = await call("note_from_template", { template: "Meeting.md", title });
    const today = localDate(Date.now());
    assert.equal(result.isError, false, result.text);
    assert.equal(result.structured.created, true);
    assert.deepEqual(result.structured.unfilled, []);
    const text = onDisk("inbox/Weekly sync Q3 plan.md");
    assert.match(text, /^---\ntitle: "Weekly sync: Q3 \\"plan\\""\ntags: \[meeting\]\ncreated: (\d{4}-\d{2}-\d{2})\n/);
    assert.equal(/created: (\S+)/.exec(text)?.[1], today, "created: {{date}} is today's date, valid YAML");
    assert.match(text, /# Weekly sync: Q3 "plan"\n/);
    assert.match(text, new RegExp(`Date: ${today} \\d{2}:\\d{2} · slug: weekly-sync-q3-plan\\n`));
    assert.doesNotMatch(text, /\{\{/);

    const read = await call("note_read", { path: "inbox/Weekly sync Q3 plan.md", with_metadata: true });
    assert.equal((read.structured.frontmatter as Record<string, unknown>).title, title, "the frontmatter parses back to the exact title");

    const again = await call("note_from_template", { template: "meeting", title });
    assert.equal(errorOf(again).code, "conflict", "an existing note is never overwritten");
  });

  test("an explicit path names the title; variables fill and override placeholders", async () => {
    const result = await call("note_from_template", { template: "meeting", path: "meetings/standup", variables: { date: "2026-03-01", time: "09:15" } });
    assert.equal(result.isError, false, result.text);
    assert.equal(result.structured.path, "meetings/standup.md");
    assert.equal(result.structured.title, "standup");
    const text = onDisk("meetings/standup.md");
    assert.match(text, /created: 2026-03-01\n/);
    assert.match(text, /Date: 2026-03-01 09:15 · slug: standup\n/);
  });
});

describe("journal", () => {
  test("reads an existing day note with its hash", async () => {
    const result = await call("journal", { date: "2026-01-05" });
    assert.equal(result.isError, false, result.text);
    assert.equal(result.structured.exists, true);
    assert.equal(result.structured.path, "journal/2026/2026-01-05.md");
    assert.equal(result.structured.content, onDisk("journal/2026/2026-01-05.md"));
    assert.match(String(result.structured.content_hash), /^[0-9a-f]{32}$/);
  });

  test("a missing day is exists: false with its path, not an error", async () => {
    const result = await call("journal", { date: "2026-01-04" });
    assert.equal(result.isError, false);
    assert.deepEqual({ exists: result.structured.exists, path: result.structured.path, date: result.structured.date }, {
      exists: false,
      path: "journal/2026/2026-01-04.md",
      date: "2026-01-04",
    });
    assert.match(result.text, /append/);
  });

  test("today and spans resolve to local days under daily-notes.json's folder and format", async () => {
    const today = await call("journal", {});
    assert.equal(today.structured.path, `journal/2026/${localDate(Date.now())}.md`);
    const yesterday = await call("journal", { date: "1d" });
    const expected = new Date();
    expected.setDate(expected.getDate() - 1);
    assert.equal(yesterday.structured.date, localDate(expected.getTime()));
  });

  test("append creates the day note and the heading, then adds entries at the end of that section", async () => {
    const dry = await call("journal", { date: "2026-01-07", append: "- first entry", dry_run: true });
    assert.equal(dry.structured.dry_run, true);
    assert.ok(!existsSync(path.join(server.vault.dir, "journal/2026/2026-01-07.md")));

    const first = await call("journal", { date: "2026-01-07", append: "- first entry", reason: "log" });
    assert.equal(first.isError, false, first.text);
    assert.equal(first.structured.created, true);
    assert.equal(first.structured.path, "journal/2026/2026-01-07.md");
    const created = onDisk("journal/2026/2026-01-07.md");
    assert.match(created, /\n---\n## Log\n\n- first entry\n$/);

    const second = await call("journal", { date: "2026-01-07", append: "- second entry\n" });
    assert.equal(second.isError, false, second.text);
    assertTrashCopy(second, created);
    assert.match(onDisk("journal/2026/2026-01-07.md"), /## Log\n\n- first entry\n- second entry\n$/);
  });

  test("append into an existing note goes under its Log, before the next heading, or adds a new heading", async () => {
    const before = onDisk("journal/2026/2026-01-05.md");
    const result = await call("journal", { date: "2026-01-05", append: "- called Bob" });
    assert.equal(result.isError, false, result.text);
    assertTrashCopy(result, before);
    const text = onDisk("journal/2026/2026-01-05.md");
    assert.match(text, /## Log\n\n- Met about \[\[projects\/alpha\/plan\]\]\.\n- called Bob\n$/);

    const ideas = await call("journal", { date: "2026-01-05", append: "A thought.", heading: "## Ideas" });
    assert.equal(ideas.isError, false, ideas.text);
    assert.match(onDisk("journal/2026/2026-01-05.md"), /- called Bob\n\n## Ideas\n\nA thought\.\n$/);
    const log = await call("journal", { date: "2026-01-05", append: "- back in the log" });
    assert.equal(log.isError, false, log.text);
    assert.match(onDisk("journal/2026/2026-01-05.md"), /- called Bob\n- back in the log\n\n## Ideas\n\nA thought\.\n$/);
  });

  test("refuses an empty append and a date it cannot read", async () => {
    assert.equal(errorOf(await call("journal", { date: "2026-01-07", append: "\n\n" })).code, "invalid_argument");
    const bad = await call("journal", { date: "next friday" });
    assert.equal(errorOf(bad).code, "invalid_argument");
    assert.match(bad.text, /YYYY-MM-DD/);
  });
});

describe("journal_range", () => {
  test("a week: one entry per day, the existing note with hash and size", async () => {
    const result = await call("journal_range", { from: "2025-12-30", to: "2026-01-05" });
    assert.equal(result.isError, false, result.text);
    const entries = result.structured.entries as Array<Record<string, unknown>>;
    assert.equal(result.structured.total, 7);
    assert.equal(result.structured.returned, 7);
    assert.deepEqual(entries.map((entry) => entry.date), ["2025-12-30", "2025-12-31", "2026-01-01", "2026-01-02", "2026-01-03", "2026-01-04", "2026-01-05"]);
    assert.equal(entries[0]!.path, "journal/2026/2025-12-30.md", "the folder is daily-notes.json's, whatever the year");
    const known = entries[6]!;
    assert.equal(known.exists, true);
    assert.equal(known.bytes, Buffer.byteLength(onDisk("journal/2026/2026-01-05.md")));
    const read = await call("note_read", { path: "journal/2026/2026-01-05.md" });
    assert.equal(known.content_hash, read.structured.content_hash);
    assert.equal(known.content, undefined, "no content unless asked");
    assert.equal(entries.filter((entry) => entry.exists).length, 1);
  });

  test("include_content returns the text, cut at max_bytes_per_note with next_byte_offset, and reports progress", async () => {
    const client = await clientFor(writerToken);
    const seen: number[] = [];
    const result = await client.callTool(
      { name: "journal_range", arguments: { from: "2026-01-01", to: "2026-01-10", include_content: true, max_bytes_per_note: 256 } },
      undefined,
      { onprogress: (notice) => seen.push(notice.progress) },
    );
    const entries = (result.structuredContent as { entries: Array<Record<string, unknown>> }).entries;
    const full = onDisk("journal/2026/2026-01-05.md");
    const fifth = entries.find((entry) => entry.date === "2026-01-05")!;
    assert.equal(fifth.content, Buffer.byteLength(full) > 256 ? Buffer.from(full).subarray(0, 256).toString() : full);
    assert.equal(fifth.next_byte_offset !== undefined, Buffer.byteLength(full) > 256);
    assert.equal(entries.find((entry) => entry.date === "2026-01-02")!.content, undefined);
    assert.deepEqual(seen, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10], "a notice for every tenth of the days");
  });

  test("366 days are served; 367 are refused with the limit; reversed ranges are refused", async () => {
    const year = await call("journal_range", { from: "2025-01-02", to: "2026-01-02" });
    assert.equal(year.isError, false, year.text);
    assert.equal(year.structured.total, 366);
    const tooLong = await call("journal_range", { from: "2025-01-01", to: "2026-01-02" });
    assert.equal(errorOf(tooLong).code, "invalid_argument");
    assert.match(tooLong.text, /367 days/);
    assert.match(tooLong.text, /at most 366/);
    assert.equal(errorOf(await call("journal_range", { from: "2026-01-05", to: "2026-01-01" })).code, "invalid_argument");
  });

  test("YYYY-MM as to means the month's last day", async () => {
    const result = await call("journal_range", { from: "2026-02", to: "2026-02" });
    assert.equal(result.structured.total, 28);
    assert.equal(result.structured.to, "2026-02-28");
  });
});

describe("capture", () => {
  test("creates inbox/<date>-<HHMM>-<slug>.md with title, tags and captured; a second one in the minute gets -2", async () => {
    const text = "Look into **token bucket** algorithms for the API gateway\n\nMore details later.";
    const startedAt = Date.now();
    const first = await call("capture", { text, tags: ["networking", "#Ideas", "inbox"] });
    assert.equal(first.isError, false, first.text);
    const firstPath = String(first.structured.path);
    const match = /^inbox\/(\d{4}-\d{2}-\d{2})-(\d{2})(\d{2})-look-into-token-bucket-algorithms-for\.md$/.exec(firstPath);
    assert.ok(match, firstPath);
    assert.ok([localDate(startedAt), localDate(Date.now())].includes(match[1]!));
    const written = onDisk(firstPath);
    assert.match(written, /^---\ntitle: Look into token bucket algorithms for the API gateway\ntags: \[inbox, networking, ideas\]\ncaptured: (\S+)\n/);
    const captured = /captured: (\S+)/.exec(written)![1]!;
    assert.match(captured, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}[+-]\d{2}:\d{2}$/);
    assert.ok(Math.abs(Date.parse(captured) - startedAt) < 60_000, "captured is the local time of the capture");
    assert.ok(written.endsWith("---\n" + text + "\n"), "the text is stored as given");
    assert.equal(first.structured.dry_run, false);

    const second = await call("capture", { text, title: "Look into token bucket algorithms for the API gateway" });
    const secondPath = String(second.structured.path);
    assert.notEqual(secondPath, firstPath);
    if (secondPath.slice(0, 22) === firstPath.slice(0, 22)) assert.equal(secondPath, firstPath.replace(/\.md$/, "-2.md"));
  });

  test("a title gives the slug; text without ASCII letters still gets a name; empty text is refused", async () => {
    const titled = await call("capture", { text: "body", title: "Über Größe" });
    assert.match(String(titled.structured.path), /-uber-grosse\.md$/);
    const japanese = await call("capture", { text: "日本語のメモ" });
    assert.match(String(japanese.structured.path), /-capture\.md$/);
    assert.equal(errorOf(await call("capture", { text: "   \n" })).code, "invalid_argument");
  });
});

describe("task_toggle", () => {
  const note = "wiki/rate-limiting.md";

  test("by line: ticks the task at line 23 and reports where it is now", async () => {
    const before = onDisk(note);
    const result = await call("task_toggle", { path: note, line: 23 });
    assert.equal(result.isError, false, result.text);
    assertTrashCopy(result, before);
    const task = result.structured.task as { line: number; text: string; done: boolean };
    assert.equal(task.text, "Decide default for login attempts");
    assert.equal(task.done, true);
    const lines = onDisk(note).split("\n");
    assert.equal(lines[task.line - 1], "- [x] Decide default for login attempts");
    const listed = await call("task_list", { path: note, status: "all" });
    const entry = (listed.structured.tasks as Array<{ line: number; text: string; done: boolean }>).find((item) => item.text === task.text)!;
    assert.deepEqual({ line: entry.line, done: entry.done }, { line: task.line, done: true });
  });

  test("by text: a unique case-insensitive part; done: false unticks; only the box changes", async () => {
    const star = await call("task_toggle", { path: note, text: "STAR bullet" });
    assert.equal(star.isError, false, star.text);
    assert.ok(onDisk(note).includes("\n* [x] star bullet task\n"));
    const undone = await call("task_toggle", { path: note, text: "refill formula", done: false });
    assert.equal(undone.isError, false, undone.text);
    assert.ok(onDisk(note).includes("\n- [ ] Document the refill formula\n"));
    const again = await call("task_toggle", { path: note, text: "refill formula", done: false });
    assert.equal(again.structured.changed, false, "setting the state it already has changes nothing");
  });

  test("ambiguous text is refused with the candidates' lines", async () => {
    const result = await call("task_toggle", { path: note, text: "bullet task" });
    assert.equal(errorOf(result).code, "invalid_argument");
    assert.equal(errorOf(result).state, "not_applied");
    const candidates = errorOf(result).candidates as Array<{ line: number; text: string }>;
    assert.deepEqual(candidates.map((item) => item.text), ["star bullet task", "plus bullet task"]);
    for (const item of candidates) assert.match(result.text, new RegExp(`line ${item.line}`));
  });

  test("a line that is not a task, unknown text and a stale hash are refused", async () => {
    const notTask = await call("task_toggle", { path: note, line: 7 });
    assert.equal(errorOf(notTask).code, "invalid_argument");
    assert.match(notTask.text, /not a task/);
    assert.match(notTask.text, /task_list/);
    const codeLine = onDisk(note).split("\n").findIndex((line) => line.includes("not a task inside code")) + 1;
    assert.equal(errorOf(await call("task_toggle", { path: note, line: codeLine })).code, "invalid_argument", "a task inside code is no task");
    assert.equal(errorOf(await call("task_toggle", { path: note, text: "nonexistent" })).code, "not_found");
    const stale = await call("task_toggle", { path: note, line: 23, content_hash: "0".repeat(32) });
    assert.equal(errorOf(stale).code, "conflict");
    assert.equal(errorOf(await call("task_toggle", { path: note })).code, "invalid_argument");
  });
});

// 1×1 transparent PNG.
const PIXEL = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=";

describe("attachment_put", () => {
  test("stores a PNG, returns a ready embed, refuses to overwrite unless asked, and trashes the old bytes", async () => {
    const put = await call("attachment_put", { path: "Attachments/pixel.png", data_base64: PIXEL });
    assert.equal(put.isError, false, put.text);
    assert.equal(put.structured.embed, "![[pixel.png]]");
    assert.deepEqual(readFileSync(path.join(server.vault.dir, "Attachments/pixel.png")), Buffer.from(PIXEL, "base64"));

    const again = await call("attachment_put", { path: "Attachments/pixel.png", data_base64: PIXEL });
    assert.equal(errorOf(again).code, "conflict");
    assert.match(again.text, /overwrite/);

    const other = Buffer.from("GIF89a-not-really");
    const replaced = await call("attachment_put", { path: "Attachments/pixel.png", data_base64: other.toString("base64url"), overwrite: true });
    assert.equal(replaced.isError, false, replaced.text);
    assertTrashCopy(replaced, Buffer.from(PIXEL, "base64"));
    assert.deepEqual(readFileSync(path.join(server.vault.dir, "Attachments/pixel.png")), other);
  });

  test("a name another file has gets the full path; a bare name goes to app.json's attachment folder", async () => {
    const clash = await call("attachment_put", { path: "other/diagram.png", data_base64: PIXEL });
    assert.equal(clash.structured.embed, "![[other/diagram.png]]");
    const bare = await call("attachment_put", { path: "bare.png", data_base64: `data:image/png;base64,${PIXEL}` });
    assert.equal(bare.structured.path, "Attachments/bare.png");
    assert.equal(bare.structured.embed, "![[bare.png]]");
  });

  test("refuses notes, extensions off the allow-list, bad base64, credentials in text files and broken canvases", async () => {
    const note = await call("attachment_put", { path: "wiki/x.md", data_base64: PIXEL });
    assert.equal(errorOf(note).code, "invalid_argument");
    assert.match(note.text, /note_create/);
    const exe = await call("attachment_put", { path: "tools/run.exe", data_base64: PIXEL });
    assert.equal(errorOf(exe).code, "unsupported");
    assert.match(exe.text, /\.png/);
    assert.equal(errorOf(await call("attachment_put", { path: "a.png", data_base64: "@@@@" })).code, "invalid_argument");
    assert.equal(errorOf(await call("attachment_put", { path: "a.png", data_base64: "" })).code, "invalid_argument");
    const key = Buffer.from(`token=ghp_${"a1B2c3D4e5".repeat(4)}\n`).toString("base64");
    assert.equal(errorOf(await call("attachment_put", { path: "notes.txt", data_base64: key })).code, "forbidden");
    assert.equal(errorOf(await call("attachment_put", { path: "x.canvas", data_base64: Buffer.from("[1,").toString("base64") })).code, "invalid_argument");
    assert.ok(!existsSync(path.join(server.vault.dir, "notes.txt")));
  });

  test(`the ${MAX_ATTACHMENT_BYTES}-byte limit: one byte more is refused before decoding, exactly the limit passes (dry run)`, async () => {
    const ctx: ToolContext = {
      user: { name: "writer", readOnly: false, vaults: [] },
      vaults: server.server.registry.forUser({ vaults: [] }),
      logger: { log: () => {} },
      now: () => Date.now(),
    };
    // "AAAA" is three zero bytes: cheap base64 of an exact decoded length.
    const zeros = (bytes: number) => "A".repeat(Math.ceil((bytes * 4) / 3));
    const tooBig = zeros(MAX_ATTACHMENT_BYTES + 1);
    await assert.rejects(
      attachmentPut.handler(ctx, attachmentPut.input.parse({ path: "big.pdf", data_base64: tooBig })),
      (error: unknown) => error instanceof ToolError && error.code === "too_large" && error.message.includes(String(MAX_ATTACHMENT_BYTES)),
    );
    const exact = zeros(MAX_ATTACHMENT_BYTES);
    const result = await attachmentPut.handler(ctx, attachmentPut.input.parse({ path: "big.pdf", data_base64: exact, dry_run: true }));
    assert.equal(result.bytes, MAX_ATTACHMENT_BYTES);
    assert.equal(result.dry_run, true);
    assert.ok(!existsSync(path.join(server.vault.dir, "big.pdf")));
  });
});

describe("pure helpers", () => {
  test("fillTemplate: date/time formats, unknown names reported, quoted frontmatter values escaped", () => {
    const now = new Date(2026, 0, 6, 9, 5, 7).getTime();
    const template = "---\nname: '{{who}}'\nraw: {{who}}\n---\n{{date:dddd D MMMM}} {{ time }} {{datetime}} {{year}}/{{month}}/{{day}} {{nope}} {{TITLE}}";
    const filled = fillTemplate(template, { now, title: "T", dateFormat: "YYYY-MM-DD", timeFormat: "HH:mm", variables: { who: "O'Hara" } });
    assert.equal(filled.text, "---\nname: 'O''Hara'\nraw: O'Hara\n---\nTuesday 6 January 09:05 2026-01-06T09:05:07 2026/01/06 {{nope}} T");
    assert.deepEqual(filled.unfilled, ["nope"]);
  });

  test("slugify folds to ASCII and cuts at a dash", () => {
    assert.equal(slugify("Café — Ærø & Straße!"), "cafe-aero-strasse");
    assert.equal(slugify("日本語"), "");
    assert.equal(slugify("one two three four five", 12), "one-two");
  });

  test("appendUnderHeading keeps sub-sections inside the section and a blank line before the next heading", () => {
    const text = "# Day\n\n## Log\n\n- a\n\n### Detail\n\nx\n\n\n## Next\n\ny\n";
    assert.equal(appendUnderHeading(text, "Log", "- b"), "# Day\n\n## Log\n\n- a\n\n### Detail\n\nx\n- b\n\n## Next\n\ny\n");
    assert.equal(appendUnderHeading("", "Log", "- a"), "## Log\n\n- a\n");
    assert.equal(appendUnderHeading("## Log", "Log", "- a"), "## Log\n\n- a\n");
  });
});

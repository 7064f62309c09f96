// Every find/read tool through the official SDK client over real HTTP, on a temp copy of edge-vault:
// the success path and each documented error.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { DEFAULT_WINDOW_BYTES } from "../../src/core/notes/window";
import { DEFAULT_MAX_RESPONSE_BYTES, utf8Bytes } from "../../src/mcp/truncate";
import { startTestServer, type TestServer } from "../support/server";
import { EDGE_VAULT } from "../support/vaults";

let server: TestServer;

before(async () => {
  server = await startTestServer({ fixture: EDGE_VAULT, name: "edge" });
});
after(async () => {
  await server.stop();
});

function errorOf(result: { structured: Record<string, unknown> }): { code: string; state: string; retry: string } {
  return result.structured.error as { code: string; state: string; retry: string };
}

describe("tools/list", () => {
  test("lists the thirteen find tools as read-only, and every tool with annotations and closed schemas", async () => {
    const client = await server.connect();
    const { tools } = await client.listTools();
    const find = [
      "attachment_list", "note_backlinks", "note_list", "note_outline", "note_query", "note_read", "note_related",
      "note_search", "tag_list", "task_list", "vault_grep", "vault_list", "vault_stats",
    ];
    const listed = new Map(tools.map((tool) => [tool.name, tool]));
    for (const name of find) {
      assert.equal(listed.get(name)?.annotations?.readOnlyHint, true, name);
      assert.equal(listed.get(name)?.annotations?.destructiveHint, false, name);
    }
    for (const tool of tools) {
      assert.equal(typeof tool.annotations?.readOnlyHint, "boolean", tool.name);
      assert.equal(typeof tool.annotations?.destructiveHint, "boolean", tool.name);
      assert.equal(typeof tool.annotations?.idempotentHint, "boolean", tool.name);
      assert.equal((tool.inputSchema as { additionalProperties?: boolean }).additionalProperties, false, tool.name);
      assert.ok(!("oneOf" in tool.inputSchema) && !("anyOf" in tool.inputSchema), tool.name);
    }
  });

  test("note_read, attachment_read, vault_grep and note_query declare the response limit as their result size for Claude Code; other tools declare nothing", async () => {
    const { tools } = await (await server.connect()).listTools();
    const declared = Object.fromEntries(tools.filter((tool) => tool._meta !== undefined).map((tool) => [tool.name, tool._meta]));
    const meta = { "anthropic/maxResultSizeChars": DEFAULT_MAX_RESPONSE_BYTES };
    assert.deepEqual(declared, { vault_grep: meta, note_read: meta, attachment_read: meta, note_query: meta });
  });
});

describe("vault_list and vault_stats", () => {
  test("vault_list names the vault, its counts and its instructions", async () => {
    const result = await server.call("vault_list");
    assert.equal(result.isError, false);
    const vaults = result.structured.vaults as Array<Record<string, unknown>>;
    assert.equal(result.structured.total, 1);
    assert.equal(vaults[0]!.name, "edge");
    assert.equal(vaults[0]!.default, true);
    assert.equal(vaults[0]!.has_instructions, true);
    assert.equal(vaults[0]!.notes, 19);
    assert.equal(vaults[0]!.attachments, 2);
    assert.equal(vaults[0]!.index, "ready");
    assert.deepEqual(JSON.parse(result.text), result.structured, "text and structuredContent carry the same object");
  });

  test("vault_stats counts notes, links, tasks and tags", async () => {
    const result = await server.call("vault_stats", {});
    const stats = result.structured.stats as Record<string, unknown>;
    assert.equal(result.structured.vault, "edge");
    assert.equal(stats.notes, 19);
    assert.equal(stats.attachments, 2);
    assert.equal(stats.open_tasks, 3);
    assert.ok((stats.broken_links as number) >= 1, "does-not-exist is broken");
    assert.ok((stats.orphans as number) >= 1, "archive/orphan.md is an orphan");
    const top = stats.top_tags as Array<{ tag: string; count: number }>;
    assert.ok(top.some((entry) => entry.tag === "hub"));
    assert.match(String(stats.last_modified), /^\d{4}-\d{2}-\d{2}T/);
  });

  test("an unknown vault is an instructive error", async () => {
    const result = await server.call("vault_stats", { vault: "nope" });
    assert.equal(result.isError, true);
    assert.equal(errorOf(result).code, "unknown_vault");
    assert.equal(errorOf(result).state, "not_applied");
    assert.match(result.text, /vault_list/);
  });
});

describe("note_list and attachment_list", () => {
  test("note_list filters by prefix, sorts and pages", async () => {
    const all = await server.call("note_list", { notes_only: true });
    assert.equal(all.structured.total, 19);
    const wiki = await server.call("note_list", { prefix: "wiki", limit: 3, offset: 1 });
    const entries = wiki.structured.entries as Array<{ path: string; kind: string }>;
    assert.equal(wiki.structured.total, 8);
    assert.equal(wiki.structured.returned, 3);
    assert.ok(entries.every((entry) => entry.path.startsWith("wiki/")));
    const sorted = [...entries].map((entry) => entry.path);
    assert.deepEqual(sorted, [...sorted].sort());
  });

  test("note_list with a glob and attachments included", async () => {
    const result = await server.call("note_list", { glob: "**/*.{png,canvas}" });
    const paths = (result.structured.entries as Array<{ path: string; kind: string }>).map((entry) => entry.path);
    assert.deepEqual(paths, ["Attachments/diagram.png", "board.canvas"]);
  });

  test("note_list never shows hidden folders", async () => {
    const result = await server.call("note_list", { limit: 1000 });
    const paths = (result.structured.entries as Array<{ path: string }>).map((entry) => entry.path);
    assert.ok(paths.every((p) => !p.split("/").some((segment) => segment.startsWith("."))));
  });

  test("a bad sort and an unknown argument are refused", async () => {
    const bad = await server.call("note_list", { sort: "colour" });
    assert.equal(errorOf(bad).code, "invalid_argument");
    const unknown = await server.call("note_list", { folder: "wiki" });
    assert.equal(unknown.isError, true);
    assert.match(unknown.text, /folder/);
  });

  test("attachment_list counts references", async () => {
    const result = await server.call("attachment_list", {});
    const attachments = result.structured.attachments as Array<{ path: string; references: number }>;
    const diagram = attachments.find((entry) => entry.path === "Attachments/diagram.png");
    assert.equal(diagram?.references, 1);
    const unused = await server.call("attachment_list", { unused_only: true });
    assert.deepEqual((unused.structured.attachments as Array<{ path: string }>).map((entry) => entry.path), ["board.canvas"]);
  });
});

describe("note_search", () => {
  test("ranks the note about the topic first, with a marked snippet", async () => {
    const result = await server.call("note_search", { query: "token bucket refill" });
    const hits = result.structured.hits as Array<{ path: string; snippet: string; score: number; title: string }>;
    assert.equal(hits[0]?.path, "wiki/rate-limiting.md");
    assert.equal(hits[0]?.title, "Rate limiting");
    assert.match(hits[0]?.snippet ?? "", /<<[^>]+>>/);
    assert.ok((hits[0]?.score ?? 0) > 0);
  });

  test("filters by tag and folder; no query lists recent notes", async () => {
    const tagged = await server.call("note_search", { query: "plan", tags: ["hub"] });
    assert.ok((tagged.structured.hits as Array<{ path: string }>).every((hit) => hit.path === "wiki/index.md"));
    const recent = await server.call("note_search", { prefix: "projects" });
    assert.equal(recent.structured.total, 3);
  });

  test("zero hits carry a hint; a malformed query is an instructive error", async () => {
    const none = await server.call("note_search", { query: "xylophonequartz" });
    assert.equal(none.structured.total, 0);
    assert.match(String(none.structured.hint), /vault_grep/);
    const bad = await server.call("note_search", { query: '"unclosed phrase' });
    assert.equal(errorOf(bad).code, "invalid_query");
    assert.match(bad.text, /quote/i);
  });

  test("explain: true gives each hit the parts of its score; without it, hits carry none", async () => {
    const plain = await server.call("note_search", { query: "token buckets refill" });
    const plainHits = plain.structured.hits as Array<Record<string, unknown>>;
    assert.ok(plainHits.length > 0 && plainHits.every((hit) => !("explanation" in hit)));
    const explained = await server.call("note_search", { query: "token buckets refill", explain: true });
    type Word = { word: string; contribution: number; idf: number; matches: Array<{ term: string; via: string; fields: Record<string, number> }> };
    const hits = explained.structured.hits as Array<{ path: string; score: number; explanation: { score: number; coverage: number; title: number; words: Word[] } }>;
    assert.deepEqual(hits.map((hit) => [hit.path, hit.score]), plainHits.map((hit) => [hit.path, hit.score]), "explaining changes no score or order");
    const top = hits[0]!;
    assert.equal(top.explanation.score, top.score);
    const sum = top.explanation.words.reduce((total, word) => total + word.contribution, 0);
    assert.ok(Math.abs(sum * top.explanation.coverage * top.explanation.title - top.score) < 0.01 * top.explanation.words.length, `${sum} × ${top.explanation.coverage} × ${top.explanation.title} vs ${top.score}`);
    const bucket = top.explanation.words.find((word) => word.word === "buckets");
    assert.ok(bucket, "the plural query word is explained");
    assert.ok(bucket.matches.some((match) => match.term === "bucket" && match.via === "stem" && Object.keys(match.fields).length > 0), JSON.stringify(bucket));
  });

  test("canvas text nodes are searchable", async () => {
    const result = await server.call("note_search", { query: "canvas card" });
    assert.ok((result.structured.hits as Array<{ path: string }>).some((hit) => hit.path === "board.canvas"));
  });
});

describe("vault_grep", () => {
  test("finds lines with context and counts scanned notes", async () => {
    const result = await server.call("vault_grep", { pattern: "refill", context: 1 });
    const matches = result.structured.matches as Array<{ path: string; line: number; before: string[] }>;
    assert.ok(matches.some((match) => match.path === "wiki/rate-limiting.md"));
    assert.equal(result.structured.notes_scanned, 19);
    assert.equal(result.structured.truncated, false);
    assert.ok(matches.every((match) => Array.isArray(match.before)));
  });

  test("truncates at the limit and rejects a bad pattern", async () => {
    const many = await server.call("vault_grep", { pattern: "e", limit: 2 });
    assert.equal(many.structured.returned, 2);
    assert.equal(many.structured.truncated, true);
    const bad = await server.call("vault_grep", { pattern: "([unclosed" });
    assert.equal(errorOf(bad).code, "invalid_argument");
    assert.match(bad.text, /literal/);
  });
});

describe("note_read and note_outline", () => {
  test("reads a note with content_hash; `.md` is optional", async () => {
    const result = await server.call("note_read", { path: "wiki/rate-limiting" });
    assert.equal(result.structured.path, "wiki/rate-limiting.md");
    assert.match(String(result.structured.content_hash), /^[0-9a-f]{32}$/);
    assert.match(String(result.structured.content), /^---\ntitle: Rate limiting/);
    assert.equal(result.structured.next_byte_offset, undefined);
  });

  test("pages through a note in windows and refuses a mixed version", async () => {
    const first = await server.call("note_read", { path: "wiki/index.md", max_bytes: 256 });
    const hash = first.structured.content_hash as string;
    const next = first.structured.next_byte_offset as number;
    assert.ok(next > 0 && next <= 256);
    const noHash = await server.call("note_read", { path: "wiki/index.md", byte_offset: next });
    assert.equal(errorOf(noHash).code, "invalid_argument");
    let text = String(first.structured.content);
    let offset: number | undefined = next;
    while (offset !== undefined) {
      const window = await server.call("note_read", { path: "wiki/index.md", max_bytes: 256, byte_offset: offset, content_hash: hash });
      text += String(window.structured.content);
      offset = window.structured.next_byte_offset as number | undefined;
    }
    const whole = await server.call("note_read", { path: "wiki/index.md" });
    assert.equal(text, whole.structured.content);
    const stale = await server.call("note_read", { path: "wiki/index.md", byte_offset: next, content_hash: "0".repeat(32) });
    assert.equal(errorOf(stale).code, "conflict");
    assert.equal(errorOf(stale).retry, "inspect_state");
  });

  test("a note over 64 KB is read in default windows that fit the response limit, each saying where to continue before its text", async () => {
    const paragraph = (index: number) => `## Part ${index}\n\nSome "quoted" text, a path C:\\notes and é日🙂 in paragraph ${index}.\n\n`;
    let body = "";
    for (let index = 0; body.length < 100_000; index++) body += paragraph(index);
    writeFileSync(path.join(server.vault.dir, "wiki", "long.md"), body);
    const total = Buffer.byteLength(body);
    const first = await server.call("note_read", { path: "wiki/long.md" });
    assert.equal(first.isError, false);
    assert.equal(first.structured.response_truncated, undefined, "nothing was cut");
    assert.equal(first.structured.window_shortened, undefined);
    assert.ok((first.structured.byte_count as number) <= DEFAULT_WINDOW_BYTES && (first.structured.byte_count as number) > DEFAULT_WINDOW_BYTES - 4);
    assert.equal(first.structured.next_byte_offset, first.structured.byte_count);
    assert.equal(first.structured.total_bytes, total);
    assert.ok(utf8Bytes(first.text) <= DEFAULT_MAX_RESPONSE_BYTES, `${utf8Bytes(first.text)} bytes`);
    assert.ok(first.text.indexOf('"next_byte_offset"') < first.text.indexOf('"content"'), "the continuation comes before the text");
    // A window asked for far over the limit ends early instead of being cut, and paging stays exact.
    const hash = first.structured.content_hash as string;
    let text = "";
    let offset: number | undefined = 0;
    let windows = 0;
    while (offset !== undefined) {
      const window = await server.call("note_read", { path: "wiki/long.md", max_bytes: 1024 * 1024, byte_offset: offset, content_hash: hash });
      assert.equal(window.structured.response_truncated, undefined);
      assert.ok(utf8Bytes(window.text) <= DEFAULT_MAX_RESPONSE_BYTES);
      if (window.structured.next_byte_offset !== undefined) assert.match(String(window.structured.window_shortened), /^max_bytes 1048576 does not fit the response limit of 36000 bytes/);
      text += String(window.structured.content);
      offset = window.structured.next_byte_offset as number | undefined;
      windows += 1;
    }
    assert.equal(text, body);
    assert.ok(windows >= 3, `${windows} windows`);
  });

  test("a default window whose JSON escapes would overflow the response limit ends early rather than being cut", async () => {
    const body = '"\\'.repeat(20_000);
    writeFileSync(path.join(server.vault.dir, "wiki", "escapes.md"), body);
    const result = await server.call("note_read", { path: "wiki/escapes.md" });
    assert.equal(result.structured.response_truncated, undefined);
    assert.ok(utf8Bytes(result.text) <= DEFAULT_MAX_RESPONSE_BYTES);
    assert.ok((result.structured.byte_count as number) < DEFAULT_WINDOW_BYTES);
    assert.equal(result.structured.next_byte_offset, result.structured.byte_count);
    assert.equal(result.structured.content, body.slice(0, result.structured.byte_count as number));
  });

  test("reads one section by heading", async () => {
    const result = await server.call("note_read", { path: "wiki/big-sections.md", heading: "## b" });
    assert.equal(result.structured.heading, "B");
    assert.equal(result.structured.content, "## B\n\nb1\n\n### B.1\n\nb11\n\n");
    const missing = await server.call("note_read", { path: "wiki/big-sections.md", heading: "Z" });
    assert.equal(errorOf(missing).code, "not_found");
    assert.match(missing.text, /note_outline/);
  });

  test("reads a canvas as JSON and refuses binaries and hidden paths", async () => {
    const canvas = await server.call("note_read", { path: "board.canvas" });
    const parsed = JSON.parse(String(canvas.structured.content)) as { nodes: unknown[] };
    assert.equal(parsed.nodes.length, 2);
    const hidden = await server.call("note_read", { path: ".trash/old.md" });
    assert.equal(errorOf(hidden).code, "invalid_path");
    const escape = await server.call("note_read", { path: "../secret.md" });
    assert.equal(errorOf(escape).code, "invalid_path");
    const missing = await server.call("note_read", { path: "wiki/nothing-here" });
    assert.equal(errorOf(missing).code, "not_found");
    assert.match(missing.text, /note_search|note_list/);
  });

  test("refuses a file over the text limit with its size", async () => {
    writeFileSync(path.join(server.vault.dir, "wiki", "huge.md"), "x".repeat(4 * 1024 * 1024 + 1));
    const result = await server.call("note_read", { path: "wiki/huge.md" });
    assert.equal(errorOf(result).code, "too_large");
    assert.match(result.text, /4194305 bytes/);
  });

  test("note_outline gives headings, tasks and links without the body", async () => {
    const result = await server.call("note_outline", { path: "wiki/rate-limiting.md" });
    const headings = result.structured.headings as Array<{ heading: string; level: number; line: number }>;
    assert.deepEqual(headings.map((heading) => heading.heading), ["Rate limiting", "Token bucket", "Details", "Leaky bucket", "Offene Fragen"]);
    assert.equal(headings[0]!.line, 5);
    const tasks = result.structured.open_tasks as Array<{ line: number; text: string }>;
    assert.equal(tasks.length, 3);
    assert.equal(result.structured.content, undefined);
    const links = result.structured.links as { incoming: number };
    assert.ok(links.incoming >= 1);
  });
});

describe("note_backlinks and note_related", () => {
  test("incoming, outgoing with resolution, and broken links", async () => {
    const result = await server.call("note_backlinks", { path: "wiki/index.md" });
    const outgoing = result.structured.outgoing as Array<{ target: string; resolved: string; candidates?: string[] }>;
    const plan = outgoing.find((link) => link.target === "plan");
    assert.equal(plan?.resolved, "projects/beta/plan.md");
    assert.deepEqual(plan?.candidates, ["projects/beta/plan.md", "projects/alpha/plan.md"]);
    const broken = result.structured.broken as Array<{ target: string }>;
    assert.deepEqual(broken.map((link) => link.target), ["does-not-exist"]);
    const incoming = await server.call("note_backlinks", { path: "wiki/rate-limiting" });
    assert.deepEqual((incoming.structured.incoming as Array<{ path: string }>).map((entry) => entry.path), ["wiki/index.md"]);
  });

  test("works for a note that does not exist yet", async () => {
    const result = await server.call("note_backlinks", { path: "does-not-exist" });
    assert.equal(result.structured.exists, false);
    assert.deepEqual((result.structured.incoming as Array<{ path: string }>).map((entry) => entry.path), ["wiki/index.md"]);
  });

  test("note_related scores direct links and same folder; a missing note is not found", async () => {
    const result = await server.call("note_related", { path: "wiki/rate-limiting.md" });
    const related = result.structured.related as Array<{ path: string; linked_from: boolean; score: number }>;
    assert.equal(related[0]?.path, "wiki/index.md");
    assert.equal(related[0]?.linked_from, true);
    const missing = await server.call("note_related", { path: "nowhere" });
    assert.equal(errorOf(missing).code, "not_found");
  });
});

describe("tag_list, task_list and note_query", () => {
  test("tag_list counts normalised tags", async () => {
    const result = await server.call("tag_list", {});
    const tags = result.structured.tags as Array<{ tag: string; count: number }>;
    const names = tags.map((entry) => entry.tag);
    assert.ok(names.includes("topic/knowledge"));
    assert.ok(names.includes("project/alpha"));
    assert.ok(!names.includes("this"));
    assert.ok(!names.includes("code"));
    const prefixed = await server.call("tag_list", { prefix: "topic" });
    assert.deepEqual((prefixed.structured.tags as Array<{ tag: string }>).map((entry) => entry.tag), ["topic/knowledge"]);
  });

  test("task_list gives file line numbers and filters by status", async () => {
    const open = await server.call("task_list", { path: "wiki/rate-limiting.md" });
    const tasks = open.structured.tasks as Array<{ line: number; text: string; done: boolean }>;
    assert.deepEqual(tasks.map((task) => task.line), [23, 25, 26]);
    const done = await server.call("task_list", { status: "done" });
    assert.equal(done.structured.total, 2);
    const bad = await server.call("task_list", { status: "later" });
    assert.equal(errorOf(bad).code, "invalid_argument");
  });

  test("note_query selects by properties with operators and sorts", async () => {
    const active = await server.call("note_query", { where: { status: "active" } });
    assert.deepEqual((active.structured.notes as Array<{ path: string }>).map((note) => note.path), ["projects/alpha/plan.md"]);
    const dated = await server.call("note_query", { where: { created: { exists: true } }, sort: "created", fields: ["created"] });
    const notes = dated.structured.notes as Array<{ path: string; properties: Record<string, unknown> }>;
    assert.ok(notes.some((note) => note.path === "wiki/index.md" && note.properties.created === "2026-01-05"));
    const badOp = await server.call("note_query", { where: { due: { before: "2026" } } });
    assert.equal(errorOf(badOp).code, "invalid_argument");
    assert.match(badOp.text, /lt/);
    const empty = await server.call("note_query", {});
    assert.equal(errorOf(empty).code, "invalid_argument");
    assert.match(empty.text, /note_list/);
  });
});

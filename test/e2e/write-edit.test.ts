// The core write tools through the official SDK client over real HTTP, on a temp copy of edge-vault:
// each success path, each refusal with its code and the call it names, byte stability of what a tool
// did not mean to change, trash copies, and the credential guard.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { randomInt } from "node:crypto";
import { existsSync, readdirSync, readFileSync, utimesSync, writeFileSync } from "node:fs";
import path from "node:path";
import { localDate } from "../../src/core/write/write-path";
import { found } from "../support/poll";
import { startTestServer, type TestServer, type ToolCallResult } from "../support/server";
import { EDGE_VAULT } from "../support/vaults";

let server: TestServer;

before(async () => {
  server = await startTestServer({ fixture: EDGE_VAULT, name: "edge", extra: { rateLimit: { perMinute: 100_000, burst: 10_000 } } });
});
after(async () => server.stop());

function disk(note: string): Buffer {
  return readFileSync(path.join(server.vault.dir, note));
}

function text(note: string): string {
  return disk(note).toString("utf8");
}

function errorOf(result: ToolCallResult): { code: string; state: string; retry: string } {
  assert.equal(result.isError, true, "expected a refusal");
  return result.structured.error as { code: string; state: string; retry: string };
}

/** A refusal: its code, nothing applied, and a message that names the call to make next. */
function assertRefused(result: ToolCallResult, code: string, next: RegExp): void {
  const error = errorOf(result);
  assert.equal(error.code, code, result.text);
  assert.equal(error.state, "not_applied", result.text);
  assert.match(result.text, next);
}

function assertOk(result: ToolCallResult): Record<string, unknown> {
  assert.equal(result.isError, false, result.text);
  assert.equal(result.structured.vault, "edge");
  return result.structured;
}

/** The write replaced something, so its old bytes are in .trash/secondbrain/. */
function assertTrashCopy(result: Record<string, unknown>, before: Buffer): void {
  const trash = result.trash;
  assert.equal(typeof trash, "string", "the result names its trash copy");
  assert.match(trash as string, /^\.trash\/secondbrain\/\d{8}-\d{6}-\d{3}(?:~\d+)?-/);
  assert.deepEqual(readFileSync(path.join(server.vault.dir, trash as string)), before);
}

async function hashOf(note: string): Promise<string> {
  const read = await server.call("note_read", { path: note });
  assert.equal(read.isError, false, read.text);
  return read.structured.content_hash as string;
}

describe("tools/list", () => {
  test("the six edit tools carry their annotations and closed schemas", async () => {
    const client = await server.connect();
    const { tools } = await client.listTools();
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    const destructive = new Set(["note_write", "note_delete"]);
    for (const name of ["note_create", "note_write", "note_edit", "note_section_edit", "note_frontmatter", "note_delete"]) {
      const tool = byName.get(name);
      assert.ok(tool, `${name} is listed`);
      assert.equal(tool.annotations?.readOnlyHint, false, name);
      assert.equal(tool.annotations?.destructiveHint, destructive.has(name), name);
      assert.equal(tool.annotations?.idempotentHint, false, name);
      assert.equal((tool.inputSchema as { additionalProperties?: boolean }).additionalProperties, false, name);
    }
    assert.deepEqual((byName.get("note_write")!.inputSchema as { required?: string[] }).required?.sort(), ["content", "content_hash", "path"]);
  });
});

describe("note_create", () => {
  test("creates a note with created/updated frontmatter", async () => {
    const result = assertOk(await server.call("note_create", { path: "inbox/fresh idea", content: "# Fresh idea\r\n\r\nA body.\r\n" }));
    assert.equal(result.path, "inbox/fresh idea.md");
    assert.equal(result.created, true);
    assert.equal(result.trash, undefined, "nothing was replaced");
    const today = localDate(Date.now());
    assert.equal(text("inbox/fresh idea.md"), `---\ncreated: ${today}\nupdated: ${today}\n---\n# Fresh idea\n\nA body.\n`);
    assert.equal(result.content_hash, await hashOf("inbox/fresh idea.md"));
  });

  test("an explicit frontmatter block is kept and only gains the keys", async () => {
    const content = "---\n# my comment\ntitle: Kept   # trailing\ntags: [a]\n---\nBody\n";
    assertOk(await server.call("note_create", { path: "inbox/with-fm.md", content }));
    const today = localDate(Date.now());
    assert.equal(text("inbox/with-fm.md"), `---\n# my comment\ntitle: Kept   # trailing\ntags: [a]\ncreated: ${today}\nupdated: ${today}\n---\nBody\n`);
  });

  test("an existing note is refused with a hint to link or edit it; overwrite replaces it and keeps a trash copy", async () => {
    const before = disk("archive/orphan.md");
    const refused = await server.call("note_create", { path: "archive/orphan.md", content: "x" });
    assertRefused(refused, "conflict", /note_edit/);
    assert.match(refused.text, /\[\[archive\/orphan\]\]/, "the hint to link it");
    assert.deepEqual(disk("archive/orphan.md"), before);
    const replaced = assertOk(await server.call("note_create", { path: "archive/orphan.md", content: "# Replaced\n", overwrite: true }));
    assert.equal(replaced.created, false);
    assertTrashCopy(replaced, before);
    assert.match(text("archive/orphan.md"), /# Replaced\n$/);
  });

  test("title and tags go into the new note's frontmatter, and the index finds it by them", async () => {
    const result = assertOk(
      await server.call("note_create", { path: "inbox/titled", content: "A body about herons.\n", title: "Herons: a field guide", tags: ["#birds", "field/notes", "birds"] }),
    );
    const today = localDate(Date.now());
    assert.equal(text("inbox/titled.md"), `---\ntitle: "Herons: a field guide"\ntags: [birds, field/notes]\ncreated: ${today}\nupdated: ${today}\n---\nA body about herons.\n`);
    assert.equal(result.content_hash, await hashOf("inbox/titled.md"));
    const found = await server.call("note_search", { query: "herons", tags: ["field/notes"] });
    assert.deepEqual((found.structured.hits as Array<{ path: string }>).map((hit) => hit.path), ["inbox/titled.md"]);
    // Given beside an explicit block, the keys join it.
    assertOk(await server.call("note_create", { path: "inbox/titled-fm.md", content: "---\nstatus: open\n---\nBody\n", tags: "a,b" }));
    assert.match(text("inbox/titled-fm.md"), /^---\nstatus: open\ntags: \[a, b\]\ncreated: /);
  });

  test("a title or tags the content's frontmatter also sets, and a tag Obsidian cannot read, are refused naming the argument", async () => {
    const twice = await server.call("note_create", { path: "inbox/twice.md", content: "---\ntitle: Mine\n---\nBody\n", title: "Other" });
    assertRefused(twice, "invalid_argument", /one place/);
    assert.equal((twice.structured.error as { argument?: string }).argument, "title");
    const spaced = await server.call("note_create", { path: "inbox/spaced.md", content: "Body\n", tags: ["fine", "two words"] });
    assertRefused(spaced, "invalid_argument", /letters, digits/);
    assert.equal((spaced.structured.error as { argument?: string }).argument, "tags[1]");
    assertRefused(await server.call("note_create", { path: "inbox/digits.md", content: "Body\n", tags: ["2024"] }), "invalid_argument", /not digits alone/);
    for (const note of ["inbox/twice.md", "inbox/spaced.md", "inbox/digits.md"]) assert.equal(existsSync(path.join(server.vault.dir, note)), false, note);
  });

  test("dry run writes nothing; attachment paths are refused towards attachment_put", async () => {
    const dry = assertOk(await server.call("note_create", { path: "inbox/dry.md", content: "# Dry\n", dry_run: true }));
    assert.equal(dry.dry_run, true);
    assert.match(dry.diff as string, /\+# Dry/);
    assert.equal(existsSync(path.join(server.vault.dir, "inbox/dry.md")), false);
    assertRefused(await server.call("note_create", { path: "Attachments/new.png", content: "x" }), "invalid_path", /attachment_put/);
    assertRefused(await server.call("note_create", { path: ".obsidian/x.md", content: "x" }), "invalid_path", /note_list/);
  });
});

describe("note_write", () => {
  test("content_hash is required, and a stale one is a conflict naming the current hash", async () => {
    assertRefused(await server.call("note_write", { path: "journal/2026/2026-01-05.md", content: "x" }), "invalid_argument", /content_hash.*note_read/);
    const current = await hashOf("journal/2026/2026-01-05.md");
    const stale = await server.call("note_write", { path: "journal/2026/2026-01-05.md", content: "x", content_hash: "0".repeat(32) });
    const error = errorOf(stale);
    assert.equal(error.code, "conflict");
    assert.equal(error.retry, "inspect_state");
    assert.equal(error.state, "not_applied");
    assert.ok(stale.text.includes(current), "the message names the current hash");
    assert.match(stale.text, /note_read/);
    assertRefused(await server.call("note_write", { path: "nowhere/new.md", content: "x", content_hash: current }), "not_found", /note_create/);
  });

  test("replaces the whole note and keeps a trash copy", async () => {
    const note = "journal/2026/2026-01-05.md";
    const before = disk(note);
    const result = assertOk(await server.call("note_write", { path: note, content: "# Rewritten\n", content_hash: await hashOf(note) }));
    assertTrashCopy(result, before);
    assert.equal(result.hash_before !== result.content_hash, true);
    assert.match(text(note), /# Rewritten\n$/);
  });

  test("keep_frontmatter keeps the frontmatter block and replaces only the body", async () => {
    const note = "README.md";
    const before = text(note);
    const result = assertOk(await server.call("note_write", { path: note, content: "# New body\n", content_hash: await hashOf(note), keep_frontmatter: true }));
    const after = text(note);
    const today = localDate(Date.now());
    const oldBlock = before.slice(0, before.indexOf("---\n", 4) + 4);
    assert.equal(after, oldBlock.replace(/---\n$/, `created: ${today}\nupdated: ${today}\n---\n`) + "# New body\n", "only the touch keys are added");
    assertTrashCopy(result, Buffer.from(before));
    const doubled = await server.call("note_write", { path: note, content: "---\na: 1\n---\nx\n", content_hash: await hashOf(note), keep_frontmatter: true });
    assertRefused(doubled, "invalid_argument", /keep_frontmatter: false|note_frontmatter/);
  });
});

describe("note_edit", () => {
  test("replaces one exact occurrence and reports replacements", async () => {
    const note = "wiki/rate-limiting.md";
    const before = disk(note);
    const result = assertOk(await server.call("note_edit", { path: note, old_string: "Drains at a fixed rate.", new_string: "Drains at a constant rate.", content_hash: await hashOf(note) }));
    assert.equal(result.replacements, 1);
    assertTrashCopy(result, before);
    assert.ok(text(note).includes("Drains at a constant rate."));
  });

  test("refuses empty, identical, missing and ambiguous old_string, naming what to do", async () => {
    const note = "wiki/rate-limiting.md";
    const before = disk(note);
    assertRefused(await server.call("note_edit", { path: note, old_string: "", new_string: "x" }), "invalid_argument", /note_read|note_section_edit/);
    assertRefused(await server.call("note_edit", { path: note, old_string: "same", new_string: "same" }), "invalid_argument", /new_string/);
    assertRefused(await server.call("note_edit", { path: note, old_string: "no such words here", new_string: "x" }), "not_found", /note_read.*vault_grep/);
    // Line numbers as an editor shows them, in the note as it is now (earlier writes added frontmatter keys).
    const lines = before.toString("utf8").split("\n");
    const lineOf = (needle: string) => lines.findIndex((line) => line.includes(needle)) + 1;
    const introLine = lineOf("Intro paragraph about limits.");
    const caseHint = await server.call("note_edit", { path: note, old_string: "INTRO PARAGRAPH about limits.", new_string: "x" });
    assertRefused(caseHint, "not_found", new RegExp(`letter case is at line ${introLine}\\.`));
    const spaceHint = await server.call("note_edit", { path: note, old_string: "Intro   paragraph\nabout limits.", new_string: "x" });
    assertRefused(spaceHint, "not_found", new RegExp(`whitespace .* at line ${introLine}\\.`));
    const taskLines = lines.flatMap((line, index) => (line.includes("- [ ]") ? [index + 1] : []));
    assert.equal(taskLines.length, 3);
    const ambiguous = await server.call("note_edit", { path: note, old_string: "- [ ]", new_string: "- [?]" });
    assertRefused(ambiguous, "invalid_argument", new RegExp(`occurs 3 times .*lines ${taskLines.join(", ")}\\).*replace_all`));
    assert.equal((ambiguous.structured.error as { occurrences: number }).occurrences, 3);
    assertRefused(await server.call("note_edit", { path: "wiki/missing.md", old_string: "a", new_string: "b" }), "not_found", /note_search|note_create/);
    assert.deepEqual(disk(note), before, "no refusal wrote anything");
  });

  test("replace_all replaces every occurrence; CRLF in old_string matches LF text", async () => {
    const note = "wiki/big-sections.md";
    const all = assertOk(await server.call("note_edit", { path: note, old_string: "b1", new_string: "bee1", replace_all: true }));
    assert.equal(all.replacements, 2);
    assert.match(text(note), /bee1\n\n### B\.1\n\nbee1/);
    const crlf = assertOk(await server.call("note_edit", { path: note, old_string: "## C\r\n\r\nc1", new_string: "## C\r\n\r\nsee one" }));
    assert.equal(crlf.replacements, 1);
    assert.match(text(note), /## C\n\nsee one\n$/);
  });

  test("a body edit of a note without frontmatter adds none", async () => {
    const note = "projects/alpha/Team notes.md";
    const before = text(note);
    assertOk(await server.call("note_edit", { path: note, old_string: "A file name with a space.", new_string: "A file name with one space." }));
    assert.equal(text(note), before.replace("A file name with a space.", "A file name with one space."));
    assertOk(await server.call("note_section_edit", { path: note, heading: "Team notes", mode: "append_to_section", content: "- next meeting" }));
    assert.ok(!text(note).startsWith("---"), "no frontmatter was added");
  });
});

describe("BOM and CRLF", () => {
  test("wiki/bom-crlf.md keeps its BOM and CRLF line endings after note_edit and note_section_edit", async () => {
    const note = "wiki/bom-crlf.md";
    assertOk(await server.call("note_edit", { path: note, old_string: "tags is a scalar.", new_string: "tags is a scalar, still." }));
    assertOk(await server.call("note_section_edit", { path: note, heading: "BOM and CRLF", mode: "append_to_section", content: "Appended\nin two lines." }));
    const bytes = disk(note);
    assert.deepEqual([...bytes.subarray(0, 3)], [0xef, 0xbb, 0xbf], "the BOM stays");
    const body = bytes.subarray(3).toString("utf8");
    assert.equal((body.match(/\n/g) ?? []).length, (body.match(/\r\n/g) ?? []).length, "every line ends with CRLF");
    assert.ok(body.includes("tags is a scalar, still.\r\n\r\nAppended\r\nin two lines.\r\n"));
    assert.ok(body.startsWith("---\r\ntitle: BOM and CRLF\r\ntags: crlf\r\n"), "the frontmatter keeps its bytes");
  });
});

describe("note_section_edit", () => {
  test("appends to a section after its sub-sections and keeps a trash copy", async () => {
    const note = "wiki/rate-limiting.md";
    const before = disk(note);
    const result = assertOk(await server.call("note_section_edit", { path: note, heading: "token bucket", mode: "append_to_section", content: "Bursts are allowed.", content_hash: await hashOf(note) }));
    assertTrashCopy(result, before);
    assert.equal(result.mode, "append_to_section");
    assert.ok(text(note).includes("Refill rate is count divided by window.\n\nBursts are allowed.\n\n## Leaky bucket"));
  });

  test("refusals: missing heading, missing note, mode arguments, stale hash", async () => {
    const note = "wiki/rate-limiting.md";
    assertRefused(await server.call("note_section_edit", { path: note, heading: "Nope", mode: "append_to_section", content: "x" }), "not_found", /note_outline.*create: true/);
    assertRefused(await server.call("note_section_edit", { path: "wiki/absent.md", mode: "append_to_note", content: "x" }), "not_found", /create: true/);
    assertRefused(await server.call("note_section_edit", { path: note, mode: "replace_section", content: "x" }), "invalid_argument", /note_outline/);
    assertRefused(await server.call("note_section_edit", { path: note, heading: "Details", mode: "bogus", content: "x" }), "invalid_argument", /replace_section/);
    const stale = await server.call("note_section_edit", { path: note, heading: "Details", mode: "delete_section", content_hash: "f".repeat(32) });
    assert.equal(errorOf(stale).retry, "inspect_state");
    assertRefused(stale, "conflict", /note_read/);
  });

  test("create: true makes the note and the heading", async () => {
    const result = assertOk(await server.call("note_section_edit", { path: "journal/log.md", heading: "Log", mode: "append_to_section", content: "- first", create: true }));
    assert.equal(result.created, true);
    const today = localDate(Date.now());
    assert.equal(text("journal/log.md"), `---\ncreated: ${today}\nupdated: ${today}\n---\n## Log\n\n- first\n`);
    assertOk(await server.call("note_section_edit", { path: "journal/log.md", heading: "Log", mode: "append_to_section", content: "- second", create: true }));
    assert.match(text("journal/log.md"), /## Log\n\n- first\n- second\n$/);
  });
});

describe("note_frontmatter", () => {
  test("setting one key of wiki/index.md leaves every other frontmatter byte, comments included, unchanged", async () => {
    const note = "wiki/index.md";
    const before = text(note);
    const result = assertOk(await server.call("note_frontmatter", { path: note, set: { status: "draft" }, content_hash: await hashOf(note) }));
    assertTrashCopy(result, Buffer.from(before));
    const today = localDate(Date.now());
    const expected = before.replace("created: 2026-01-05\n---\n", `created: 2026-01-05\nstatus: draft\nupdated: ${today}\n---\n`);
    assert.notEqual(expected, before);
    assert.equal(text(note), expected);
  });

  test("a created added to an existing note is the file's own date (birth, or modification when older), not today's", async () => {
    const note = "wiki/old-note.md";
    const file = path.join(server.vault.dir, note);
    writeFileSync(file, "---\nstatus: open\n---\nWritten long ago.\n");
    // Noon local time, so the date is the same in every time zone the machine may be in.
    const then = new Date(2024, 2, 10, 12, 0, 0);
    utimesSync(file, then, then);
    const hash = await found(10_000, "the server sees the new file", async () => {
      const read = await server.call("note_read", { path: note });
      return read.isError ? undefined : (read.structured.content_hash as string);
    });
    assertOk(await server.call("note_frontmatter", { path: note, set: { status: "done" }, content_hash: hash }));
    const today = localDate(Date.now());
    assert.equal(text(note), `---\nstatus: done\ncreated: 2024-03-10\nupdated: ${today}\n---\nWritten long ago.\n`);
  });

  test("tags and aliases are sorted sets; an unchanged set writes nothing", async () => {
    const note = "wiki/index.md";
    const same = assertOk(await server.call("note_frontmatter", { path: note, add_tags: ["#HUB"] }));
    assert.equal(same.changed, false);
    const before = text(note);
    const body = before.slice(before.indexOf("---\n", 4));
    const tags = assertOk(await server.call("note_frontmatter", { path: note, add_tags: "beta, #hub", remove_aliases: ["home PAGE"] }));
    assert.deepEqual(tags.tags, ["beta", "hub", "Topic/Knowledge"]);
    assert.deepEqual(tags.aliases, ["Start"]);
    const after = text(note);
    assert.match(after, /tags:\n {2}- beta\n {2}- hub\n {2}- Topic\/Knowledge\n/);
    assert.match(after, /aliases: \[Start\]\n/);
    assert.equal(after.slice(after.indexOf("---\n", 4)), body, "the body is untouched");
    const removed = assertOk(await server.call("note_frontmatter", { path: note, unset: ["status"], remove_aliases: "start" }));
    assert.deepEqual(removed.aliases, [], "the last alias removed: the key goes");
    assert.doesNotMatch(text(note), /aliases:|status:/);
  });

  test("a note without frontmatter gains one only when something is set", async () => {
    const note = "wiki/hr-not-frontmatter.md";
    const before = text(note);
    assert.ok(!before.startsWith("---"), "the fixture has no frontmatter");
    const nothing = assertOk(await server.call("note_frontmatter", { path: note, unset: ["status"] }));
    assert.equal(nothing.changed, false);
    assert.equal(text(note), before);
    assertOk(await server.call("note_frontmatter", { path: note, add_tags: ["idea"] }));
    const after = text(note);
    assert.ok(after.startsWith("---\ntags: [idea]\n"));
    assert.ok(after.endsWith("\n---\n" + before), "the body follows byte for byte");
  });

  test("refusals: nothing to change, conflicting keys, bad tags, missing note", async () => {
    const note = "wiki/index.md";
    assertRefused(await server.call("note_frontmatter", { path: note }), "invalid_argument", /note_outline/);
    assertRefused(await server.call("note_frontmatter", { path: note, set: { a: 1 }, unset: ["a"] }), "invalid_argument", /set and unset/);
    assertRefused(await server.call("note_frontmatter", { path: note, set: { tags: ["x"] }, add_tags: ["y"] }), "invalid_argument", /add_tags/);
    assertRefused(await server.call("note_frontmatter", { path: note, add_tags: ["two words"] }), "invalid_argument", /spaces/);
    assertRefused(await server.call("note_frontmatter", { path: "wiki/nope.md", set: { a: 1 } }), "not_found", /note_search/);
  });
});

describe("note_delete", () => {
  test("dry run deletes nothing; delete moves the note to the trash and names who still links to it", async () => {
    const note = "projects/beta/plan.md";
    const backlinks = await server.call("note_backlinks", { path: note });
    const expected = (backlinks.structured.incoming as Array<{ path: string }>).map((entry) => entry.path).sort();
    assert.ok(expected.includes("wiki/index.md"), "[[plan]] in wiki/index.md resolves here");
    const before = disk(note);
    const dry = assertOk(await server.call("note_delete", { path: note, dry_run: true }));
    assert.deepEqual(dry.linked_from, expected);
    assert.ok(existsSync(path.join(server.vault.dir, note)));
    assertRefused(await server.call("note_delete", { path: note, content_hash: "a".repeat(32) }), "conflict", /note_read/);
    const result = assertOk(await server.call("note_delete", { path: note, content_hash: await hashOf(note) }));
    assert.equal(result.deleted, true);
    assert.deepEqual(result.linked_from, expected);
    assert.match((result.warnings as string[]).join("\n"), /wiki\/index\.md.*broken|broken.*wiki\/index\.md/);
    assertTrashCopy(result, before);
    assert.equal(existsSync(path.join(server.vault.dir, note)), false);
    assertRefused(await server.call("note_delete", { path: note }), "not_found", /note_search|note_list/);
    const trashFolder = path.join(server.vault.dir, ".trash/secondbrain");
    assert.ok(readdirSync(trashFolder).some((name) => name.endsWith("-projects__beta__plan.md")));
  });
});

describe("credential guard", () => {
  test("placeholders pass; a real-looking key is refused with line and detector, never echoed", async () => {
    const note = "wiki/secrets.md";
    assertOk(await server.call("note_section_edit", { path: note, mode: "append_to_note", content: "Use `Bearer <token>` and `sk-...` in examples." }));
    const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    const key = "sk-" + Array.from({ length: 40 }, () => alphabet[randomInt(alphabet.length)]).join("");
    const before = disk(note);
    const refused = await server.call("note_edit", { path: note, old_string: "a real-looking token is not.", new_string: `a real-looking token is not: ${key}` });
    assertRefused(refused, "forbidden", /line 3 \(OpenAI API key\).*placeholder/);
    assert.ok(!refused.text.includes(key) && !JSON.stringify(refused.structured).includes(key.slice(3)), "the secret is not echoed");
    assert.deepEqual(disk(note), before);
    const created = await server.call("note_create", { path: "inbox/leak.md", content: `# Leak\n\nkey: ${key}\n` });
    assertRefused(created, "forbidden", /line \d+ \(OpenAI API key\)/);
    assert.equal(existsSync(path.join(server.vault.dir, "inbox/leak.md")), false);
  });
});

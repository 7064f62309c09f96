// Arguments and names an attacker (or a confused agent) sends, through the official SDK client over real
// HTTP on a temp copy of edge-vault: prototype keys, out-of-range values, names a synced Windows machine
// cannot hold, SVGs that run script, frontmatter the alias limit must not lock.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { startTestServer, type TestServer, type ToolCallResult } from "../support/server";
import { EDGE_VAULT } from "../support/vaults";

let server: TestServer;

before(async () => {
  server = await startTestServer({ fixture: EDGE_VAULT, name: "edge" });
});
after(async () => {
  await server.stop();
});

function codeOf(result: ToolCallResult): string {
  return (result.structured.error as { code: string } | undefined)?.code ?? "none";
}

describe("prototype keys", () => {
  test("__proto__, constructor and toString are unknown arguments", async () => {
    for (const key of ["__proto__", "constructor", "toString", "hasOwnProperty"]) {
      const result = await server.call("note_read", { path: "wiki/index.md", [key]: { path: "projects/alpha/plan.md" } });
      assert.equal(result.isError, true, key);
      assert.equal(codeOf(result), "invalid_argument", key);
      assert.match(result.text, new RegExp(`Unknown argument\\(s\\): ${key}\\.`), key);
    }
  });

  test("note_query matches only a note's own properties", async () => {
    for (const key of ["constructor", "toString", "__proto__", "hasOwnProperty", "valueOf"]) {
      const result = await server.call("note_query", { where: { [key]: { exists: true } } });
      assert.equal(result.isError, false, result.text);
      assert.equal(result.structured.total, 0, key);
    }
    const status = await server.call("note_query", { where: { status: { exists: true } }, fields: ["status", "constructor", "__proto__"], sort: "toString" });
    assert.equal(status.structured.total, 2);
    for (const note of status.structured.notes as Array<{ properties: Record<string, unknown> }>) {
      assert.deepEqual(Object.keys(note.properties), ["status", "constructor", "__proto__"]);
      assert.equal(note.properties.constructor, null);
      assert.equal(Object.getOwnPropertyDescriptor(note.properties, "__proto__")?.value, null);
    }
  });

  test("note_search's properties filter reads own properties only", async () => {
    const result = await server.call("note_search", { properties: { constructor: null }, limit: 50 });
    assert.equal(result.isError, false, result.text);
    const all = await server.call("note_search", { limit: 50 });
    assert.equal(result.structured.total, all.structured.total, "no note has a constructor property, so each equals null");
    const none = await server.call("note_search", { properties: { toString: "x" } });
    assert.equal(none.structured.total, 0);
  });
});

describe("values out of range", () => {
  test("name the value and the limit", async () => {
    const over = await server.call("note_list", { limit: 5000 });
    assert.match(over.text, /Argument "limit" must be at most 1000; got 5000\./);
    const under = await server.call("note_search", { query: "x", limit: 0 });
    assert.match(under.text, /Argument "limit" must be at least 1; got 0\./);
  });
});

/** Calls until `check` holds for the result (the watcher takes files written behind the server's back). */
async function until(name: string, args: Record<string, unknown>, check: (result: ToolCallResult) => boolean): Promise<ToolCallResult> {
  for (let attempt = 0; ; attempt++) {
    const result = await server.call(name, args);
    if (check(result)) return result;
    if (attempt > 400) assert.fail(`${name} never satisfied the check: ${result.text.slice(0, 300)}`);
    await new Promise((resolve) => setImmediate(resolve));
  }
}

const onDisk = (relative: string): string => path.join(server.vault.dir, ...relative.split("/"));
const PNG = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==", "base64").toString("base64");

describe("new names a vault synced to Windows cannot hold", () => {
  test("note_create, attachment_put, note_from_template and vault_create refuse them, dry runs too, and write nothing", async () => {
    const refusals: Array<[string, Record<string, unknown>, RegExp]> = [
      ["note_create", { path: "con.md", content: "x" }, /new file name `con\.md` is a name Windows reserves.*e\.g\. "con-1\.md"/],
      ["note_create", { path: "wiki/LPT1", content: "x" }, /`LPT1\.md` is a name Windows reserves/],
      ["note_create", { path: "notes/C:/x.md", content: "x", dry_run: true }, /new folder name `C:` contains `:`/],
      ["note_create", { path: "wiki/what?.md", content: "x" }, /contains `\?`/],
      ["note_create", { path: "wiki/draft. /x.md", content: "x" }, /folder name `draft\. ` ends with a space/],
      ["attachment_put", { path: "Attachments/con.png", data_base64: PNG }, /`con\.png` is a name Windows reserves/],
      ["attachment_put", { path: "Attachments/a:b.png", data_base64: PNG, dry_run: true }, /`a:b\.png` contains `:`/],
      ["attachment_put", { path: "Attachments/<b>.png", data_base64: PNG }, /contains `<`/],
      ["note_from_template", { template: "meeting", title: "Aux" }, /`Aux\.md` is a name Windows reserves/],
      ["vault_create", { layout: "plain", prefix: "work/PRN" }, /new folder name `PRN` is a name Windows reserves/],
    ];
    for (const [tool, args, expected] of refusals) {
      const result = await server.call(tool, args);
      assert.equal(codeOf(result), "invalid_path", `${tool} ${JSON.stringify(args)}: ${result.text}`);
      assert.match(result.text, expected, tool);
    }
    for (const gone of ["con.md", "wiki/LPT1.md", "notes", "Attachments/con.png", "Attachments/a:b.png", "work", "templates/plain-note.md"]) {
      assert.equal(existsSync(onDisk(gone)), false, gone);
    }
  });

  test("note_move and note_split refuse a new name before anything changes", async () => {
    const move = await server.call("note_move", { path: "wiki/index.md", to: "wiki/nul.md", dry_run: true });
    assert.equal(codeOf(move), "invalid_path");
    assert.match(move.text, /`nul\.md` is a name Windows reserves/);
    const moved = await server.call("note_move", { path: "wiki/index.md", to: "Archive|old/" });
    assert.match(moved.text, /folder name `Archive\|old` contains `\|`/);
    assert.ok(existsSync(onDisk("wiki/index.md")));
    const created = await server.call("note_create", { path: "wiki/to-split.md", content: "# To split\n\n## Con\n\nFirst part.\n\n## Fine\n\nSecond part.\n" });
    assert.equal(created.isError, false, created.text);
    const split = await server.call("note_split", { path: "wiki/to-split.md", dry_run: true });
    assert.equal(split.isError, true);
    assert.match(split.text, /Heading "Con" \(line \d+\) gives a path the vault cannot hold \(The new file name `Con\.md` is a name Windows reserves/);
  });

  test("files and folders that already have such names stay readable and editable, and new notes may go in such a folder", async () => {
    mkdirSync(onDisk("odd:folder"), { recursive: true });
    writeFileSync(onDisk("odd:folder/con.md"), "# Made on Linux\n\nStill here.\n");
    writeFileSync(onDisk("wiki/a:b.md"), "Colon note.\n");
    await until("note_list", { prefix: "odd:folder" }, (result) => result.structured.total === 1);
    const read = await server.call("note_read", { path: "odd:folder/con.md" });
    assert.equal(read.isError, false, read.text);
    assert.match(String(read.structured.content), /Still here/);
    const edited = await server.call("note_edit", { path: "wiki/a:b.md", old_string: "Colon note.", new_string: "Colon note, edited." });
    assert.equal(edited.isError, false, edited.text);
    const created = await server.call("note_create", { path: "odd:folder/fresh.md", content: "New in an old folder.\n" });
    assert.equal(created.isError, false, created.text);
    const refused = await server.call("note_create", { path: "odd:folder/new:sub/x.md", content: "x" });
    assert.match(refused.text, /new folder name `new:sub` contains `:`/);
  });
});

describe("long names", () => {
  test("a 250-character name is written (the temp file does not push it over 255 bytes)", async () => {
    const name = `wiki/${"n".repeat(247)}.md`;
    const created = await server.call("note_create", { path: name, content: "Long name.\n" });
    assert.equal(created.isError, false, created.text);
    assert.equal(readFileSync(onDisk(name), "utf8").includes("Long name."), true);
    const edited = await server.call("note_edit", { path: name, old_string: "Long name.", new_string: "Long name, edited." });
    assert.equal(edited.isError, false, edited.text);
    const put = await server.call("attachment_put", { path: `Attachments/${"p".repeat(251)}.png`, data_base64: PNG });
    assert.equal(put.isError, false, put.text);
  });

  test("a 300-character name is refused as too long, not as leaving the vault", async () => {
    for (const [tool, args] of [
      ["note_create", { path: `wiki/${"n".repeat(300)}.md`, content: "x" }],
      ["note_read", { path: `wiki/${"n".repeat(300)}.md` }],
      ["attachment_put", { path: `${"d".repeat(256)}/x.png`, data_base64: PNG }],
    ] as const) {
      const result = await server.call(tool, args);
      assert.equal(codeOf(result), "invalid_path", tool);
      assert.match(result.text, /^Name too long: `[nd]{40}…` has \d{3} bytes in UTF-8, and a file or folder name may have at most 255/, tool);
      assert.doesNotMatch(result.text, /outside the vault/);
    }
  });
});

describe("SVG attachments", () => {
  const svg = (inner: string): string => Buffer.from(`<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink">${inner}</svg>`).toString("base64");

  test("an SVG that could run code is refused, however it is spelled; a plain one is stored", async () => {
    const refused: Array<[string, RegExp]> = [
      ["<script>alert(1)</script>", /contains a <script> element/],
      ["<ScRiPt>alert(1)</ScRiPt>", /contains a <ScRiPt> element/],
      ['<rect onload ="alert(1)"/>', /an event-handler attribute \(onload=…\)/],
      ['<a xlink:href="  javascript:alert(1)"><text>x</text></a>', /a javascript: URL \(in xlink:href\)/],
      ['<a href="&#106;avascript:alert(1)">x</a>', /a javascript: URL/],
      ["<foreignObject><div>x</div></foreignObject>", /a <foreignObject> element/],
    ];
    for (const [inner, expected] of refused) {
      const result = await server.call("attachment_put", { path: "Attachments/drawing.svg", data_base64: svg(inner) });
      assert.equal(codeOf(result), "forbidden", inner);
      assert.match(result.text, expected, inner);
      assert.match(result.text, /without <script> and <foreignObject> elements, on…= event-handler attributes and javascript: URLs/);
    }
    const utf16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('<svg><script>alert(1)</script></svg>', "utf16le")]).toString("base64");
    assert.equal(codeOf(await server.call("attachment_put", { path: "Attachments/drawing.svg", data_base64: utf16 })), "forbidden");
    assert.equal(existsSync(onDisk("Attachments/drawing.svg")), false);
    const plain = await server.call("attachment_put", { path: "Attachments/drawing.svg", data_base64: svg('<rect width="4" height="4" fill="#369"/><text>onload = fine in text</text>') });
    assert.equal(plain.isError, false, plain.text);
  });
});

describe("the YAML alias limit", () => {
  const aliases = Array.from({ length: 200 }, (_, index) => `a${index}: *b`).join("\n");
  const note = `---\ntitle: Many aliases\nbase: &b value\n${aliases}\n---\nBody text.\n`;

  test("a note over it stays editable by edits that leave the aliases as they were; adding one is refused", async () => {
    writeFileSync(onDisk("wiki/aliases.md"), note);
    const body = await server.call("note_edit", { path: "wiki/aliases.md", old_string: "Body text.", new_string: "Body text, edited." });
    assert.equal(body.isError, false, body.text);
    const section = await server.call("note_section_edit", { path: "wiki/aliases.md", mode: "append_to_note", content: "More.\n" });
    assert.equal(section.isError, false, section.text);
    const property = await server.call("note_frontmatter", { path: "wiki/aliases.md", set: { status: "done" } });
    assert.equal(property.isError, false, property.text);
    assert.match(readFileSync(onDisk("wiki/aliases.md"), "utf8"), /^status: done$/m);
    const more = await server.call("note_edit", { path: "wiki/aliases.md", old_string: "a199: *b", new_string: "a199: *b\na200: *b" });
    assert.equal(codeOf(more), "invalid_argument");
    assert.match(more.text, /uses 201 aliases \(\*name\); more than 100 are not resolved/);
    const tags = await server.call("note_frontmatter", { path: "wiki/aliases.md", add_tags: ["x"] });
    assert.equal(codeOf(tags), "invalid_argument");
    assert.match(tags.text, /aliases \(\*name\); more than 100/);
  });
});

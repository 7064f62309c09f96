import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { editFrontmatter } from "../../../src/core/write/frontmatter-edit";
import { parseFrontmatter } from "../../../src/core/notes/frontmatter";
import { EDGE_VAULT } from "../../support/vaults";

const index = readFileSync(path.join(EDGE_VAULT, "wiki", "index.md"), "utf8");
const yamlOf = (text: string): string => text.slice(0, text.indexOf("\n---\n", 4));

function otherLines(before: string, after: string, touched: RegExp): void {
  const keep = (text: string): string[] => yamlOf(text).split("\n").filter((line) => !touched.test(line));
  assert.deepEqual(keep(after), keep(before));
}

test("setting one key leaves every other frontmatter byte, comments included, unchanged", () => {
  const edited = editFrontmatter(index, [{ key: "title", value: "Index of everything" }], { createIfMissing: false });
  assert.equal(edited.replace("title: Index of everything", "title: Index"), index);
  assert.match(edited, /# a comment that must survive a frontmatter edit/);
  assert.match(edited, /- Topic\/Knowledge {3}# nested tag, mixed case, trailing comment/);
});

test("a new key is appended before the closing fence; the body is untouched", () => {
  const edited = editFrontmatter(index, [{ key: "updated", value: "2026-12-02" }], { createIfMissing: false });
  assert.equal(edited, index.replace("created: 2026-01-05\n---\n", "created: 2026-01-05\nupdated: 2026-12-02\n---\n"));
});

test("a block list stays a block list with its indentation", () => {
  const edited = editFrontmatter(index, [{ key: "tags", value: ["hub", "topic/knowledge", "new"] }], { createIfMissing: false });
  assert.match(edited, /tags:\n {2}- hub\n {2}- topic\/knowledge\n {2}- new\naliases:/);
  otherLines(index, edited, /^(tags:| {2}- )/);
});

test("a flow list stays inline; values that need quotes get them", () => {
  const edited = editFrontmatter(index, [{ key: "aliases", value: ["Start", "Home: page"] }], { createIfMissing: false });
  assert.match(edited, /^aliases: \[Start, "Home: page"\]$/m);
  assert.deepEqual(parseFrontmatter(edited).data?.aliases, ["Start", "Home: page"]);
});

test("removing a key removes its whole entry, block lists included", () => {
  const edited = editFrontmatter(index, [{ key: "tags", remove: true }, { key: "created", remove: true }], { createIfMissing: false });
  assert.equal(parseFrontmatter(edited).data?.tags, undefined);
  assert.equal(parseFrontmatter(edited).data?.created, undefined);
  assert.match(edited, /^title: Index\naliases: \[Start, Home page\]\n---\n/m);
});

test("CRLF and BOM are kept; an empty value is filled in place", () => {
  const crlf = "\uFEFF---\r\ntitle: T\r\nupdated:\r\n---\r\nbody\r\n";
  const edited = editFrontmatter(crlf, [{ key: "updated", value: "2026-12-02" }, { key: "created", value: "2026-01-01" }], { createIfMissing: false });
  assert.equal(edited, "\uFEFF---\r\ntitle: T\r\nupdated: 2026-12-02\r\ncreated: 2026-01-01\r\n---\r\nbody\r\n");
});

test("a note without frontmatter gets one only when asked and something is set", () => {
  assert.equal(editFrontmatter("# Hi\n", [{ key: "a", value: 1 }], { createIfMissing: false }), "# Hi\n");
  assert.equal(editFrontmatter("# Hi\n", [{ key: "a", remove: true }], { createIfMissing: true }), "# Hi\n");
  assert.equal(editFrontmatter("# Hi\n", [{ key: "a", value: "x" }], { createIfMissing: true }), "---\na: x\n---\n# Hi\n");
});

test("invalid YAML is refused, not guessed at", () => {
  assert.throws(
    () => editFrontmatter("---\na: [unclosed\n---\nbody\n", [{ key: "b", value: 1 }], { createIfMissing: false }),
    (error: Error & { code?: string }) => error.code === "invalid_argument" && /note_write/.test(error.message),
  );
});

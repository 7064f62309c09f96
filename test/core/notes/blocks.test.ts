import { test } from "node:test";
import assert from "node:assert/strict";
import { parseNote } from "../../../src/core/notes/structure";

const lines = (...rows: string[]): string => rows.join("\n") + "\n";
const headings = (text: string): Array<[string, number]> => (parseNote(text).headings ?? []).map((h) => [h.heading, h.level]);
const sectionTypes = (text: string): string[] => (parseNote(text).sections ?? []).map((s) => s.type);
const items = (text: string): Array<[number, number, string | undefined]> =>
  (parseNote(text).listItems ?? []).map((item) => [item.position.start.line, item.parent, item.task]);

test("ATX headings: levels 1-6, closing hashes stripped, no space means no heading", () => {
  assert.deepEqual(headings(lines("# One #", "###### Six", "####### Seven", "#NoSpace", "  ## Indented two", "    # code", "## Trailing ##  ", "#")), [
    ["One", 1],
    ["Six", 6],
    ["Indented two", 2],
    ["Trailing", 2],
    ["", 1],
  ]);
  assert.deepEqual(parseNote("#NoSpace").tags?.map((t) => t.tag), ["#NoSpace"]);
  assert.deepEqual(parseNote("# Title #tag").tags?.map((t) => t.tag), ["#tag"]);
});

test("fences: backticks or tildes, 3+, closed only by the same char and at least the same length", () => {
  const text = lines("````md", "```", "# inside", "```", "````", "~~~~", "~~~", "# inside too", "~~~~~", "# after");
  assert.deepEqual(headings(text), [["after", 1]]);
  assert.deepEqual(sectionTypes(text), ["code", "code", "heading"]);
  assert.deepEqual(headings(lines("```", "# never closed", "[[x]]")), []);
  assert.equal(parseNote(lines("```", "[[x]]")).links, undefined);
  assert.deepEqual(headings(lines("``` with `backtick` info is not a fence", "# real")), [["real", 1]]);
});

test("fences inside quotes and list items hide their content", () => {
  const quoted = parseNote(lines("> [!tip] Title", "> ```md", "> [[hidden]] #hidden", "> ```", "> [[shown]]"));
  assert.deepEqual(quoted.links?.map((l) => l.link), ["shown"]);
  assert.equal(quoted.tags, undefined);
  assert.deepEqual(quoted.sections?.map((s) => s.type), ["callout"]);
  const listed = parseNote(lines("- item", "  ```", "  - [ ] not a task [[hidden]]", "  ```", "- [ ] task"));
  assert.equal(listed.links, undefined);
  assert.deepEqual(listed.listItems?.map((item) => item.task), [undefined, " "]);
});

test("indented code after a blank line is code; inside a paragraph it is text", () => {
  assert.equal(parseNote(lines("para", "", "    [[in code]]")).links, undefined);
  assert.deepEqual(parseNote(lines("para", "    [[continued]]")).links?.map((l) => l.link), ["continued"]);
});

test("lists: parents, nesting by indent or tab, bullet kinds, ordered lists", () => {
  assert.deepEqual(items(lines("intro", "", "- a", "  - b", "    - c", "  - d", "- e")), [
    [2, -2, undefined],
    [3, 2, undefined],
    [4, 3, undefined],
    [5, 2, undefined],
    [6, -2, undefined],
  ]);
  assert.deepEqual(items(lines("- a", "\t- b", "\t\t- [x] c")), [
    [0, 0, undefined],
    [1, 0, undefined],
    [2, 1, "x"],
  ]);
  assert.deepEqual(items(lines("1. one", "2. two", "   - [ ] sub", "1) other list", "3. lazy text, not an item")), [
    [0, 0, undefined],
    [1, 0, undefined],
    [2, 1, " "],
    [3, -3, undefined],
  ]);
  assert.deepEqual(items(lines("- a", "* b", "+ c")), [
    [0, 0, undefined],
    [1, -1, undefined],
    [2, -2, undefined],
  ]);
  assert.deepEqual(items(lines("- [-] cancelled", "- [/] started", "- [ ]", "- [] not a task", "- [ab] not a task")), [
    [0, 0, "-"],
    [1, 0, "/"],
    [2, 0, " "],
    [3, 0, undefined],
    [4, 0, undefined],
  ]);
});

test("lists: blank lines, lazy continuation and interruptions", () => {
  const loose = parseNote(lines("- a", "", "- b", "", "  still b", "", "after"));
  assert.deepEqual(loose.sections?.map((s) => [s.type, s.position.start.line, s.position.end.line]), [
    ["list", 0, 4],
    ["paragraph", 6, 6],
  ]);
  const lazy = parseNote(lines("- a", "lazy [[x]]", "# Heading"));
  assert.deepEqual(lazy.sections?.map((s) => s.type), ["list", "heading"]);
  assert.equal(lazy.listItems?.[0]?.position.end.line, 1);
  assert.deepEqual(sectionTypes(lines("Paragraph", "- starts a list", "2. does not interrupt")), ["paragraph", "list"]);
  assert.deepEqual(sectionTypes(lines("Paragraph", "2. no list here")), ["paragraph"]);
  assert.deepEqual(sectionTypes(lines("- a", "---", "* * *")), ["list", "thematicBreak", "thematicBreak"]);
  assert.deepEqual(headings(lines("- item", "  # not root-level")), []);
});

test("sections: quotes, callouts, tables, rules, paragraphs; empty lists are omitted", () => {
  const text = lines("> quote", "lazy line", "", "> [!note] Callout", "> body", "", "a | b", "--|--", "1 | 2", "", "***", "", "text", "more text");
  assert.deepEqual(sectionTypes(text), ["blockquote", "callout", "table", "thematicBreak", "paragraph"]);
  assert.deepEqual(parseNote(""), {});
  assert.deepEqual(Object.keys(parseNote("plain words")), ["sections"]);
  assert.deepEqual(sectionTypes(lines("a | b", "not a delimiter")), ["paragraph"]);
});

test("block ids: on paragraphs, list items, and standalone after a structured block", () => {
  const cache = parseNote(lines("Para line one", "line two ^Para-ID", "", "- item ^item1", "- other", "", "^list-id", "", "> quote", "", "^quote-id", "", "# H", "^own"));
  const blocks = cache.blocks ?? {};
  assert.deepEqual(Object.keys(blocks).sort(), ["item1", "list-id", "own", "para-id", "quote-id"]);
  assert.equal(blocks["para-id"]?.id, "Para-ID", "keyed lowercase, id as written");
  assert.deepEqual([blocks["para-id"]?.position.start.line, blocks["para-id"]?.position.end.line], [0, 1]);
  assert.equal(blocks["item1"]?.position.start.line, 3);
  assert.equal(cache.listItems?.[0]?.id, "item1");
  assert.deepEqual([blocks["list-id"]?.position.start.line, blocks["list-id"]?.position.end.line], [3, 4]);
  assert.equal(blocks["quote-id"]?.position.start.line, 8);
  assert.equal(blocks["own"]?.position.start.line, 13, "after a heading the id line is its own paragraph");
  assert.equal(cache.sections?.find((s) => s.type === "list")?.id, "list-id");
});

test("frontmatter: position, yaml section, links by dotted key, absent when invalid", () => {
  const source = lines("---", "related: \"[[a|A]]\"", "nested:", "  - \"[[b#c]]\"", "not: \"x [[c]]\"", "---", "body");
  const valid = parseNote(source);
  const closing = source.indexOf("\n---\n") + 1;
  assert.deepEqual(valid.frontmatterPosition, { start: { line: 0, col: 0, offset: 0 }, end: { line: 5, col: 3, offset: closing + 3 } });
  assert.equal(valid.sections?.[0]?.type, "yaml");
  assert.deepEqual(valid.frontmatterLinks?.map((l) => [l.key, l.link, l.displayText]), [
    ["related", "a", "A"],
    ["nested.0", "b#c", "b#c"],
  ]);
  const deep = parseNote(lines("---", "a: {b: {c: [\"[[x]]\"]}}", "---"));
  assert.deepEqual(deep.frontmatterLinks?.map((l) => l.key), ["a.b.c.0"]);

  const invalid = parseNote(lines("---", "a: [1", "---", "# Body"));
  assert.equal(invalid.frontmatter, undefined);
  assert.equal(invalid.frontmatterPosition?.end.line, 2);
  assert.deepEqual(invalid.headings?.map((h) => h.heading), ["Body"]);
});

test("CRLF line endings never leak into positions or text", () => {
  const text = "# Title\r\n\r\n- [ ] task [[link]]\r\n";
  const cache = parseNote(text);
  assert.equal(cache.headings?.[0]?.position.end.col, 7);
  assert.equal(cache.links?.[0]?.position.start.offset, text.indexOf("[[link]]"));
  assert.equal(cache.listItems?.[0]?.position.end.offset, text.indexOf("\r\n", 10));
});

test("a large note parses completely", () => {
  const chunk = lines("## Heading", "", "Text with [[link]] and #tag and `code` here.", "", "- [ ] task", "  - nested [[x|y]]", "", "```js", "[[no]]", "```", "");
  const text = chunk.repeat(4000);
  const cache = parseNote(text);
  assert.equal(cache.links?.length, 8000);
  assert.equal(cache.headings?.length, 4000);
});

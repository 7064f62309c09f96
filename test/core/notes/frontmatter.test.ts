import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { frontmatterData, parseFrontmatter, splitFrontmatter } from "../../../src/core/notes/frontmatter";
import { EDGE_VAULT } from "../../support/vaults";

const edge = (file: string): string => readFileSync(path.join(EDGE_VAULT, file), "utf8");

test("a block opened by --- and closed by the next exact --- line is frontmatter", () => {
  const text = "---\ntitle: A\n---\n# Body\n";
  const split = splitFrontmatter(text);
  assert.deepEqual(split, { exists: true, bom: false, eol: "\n", yamlStart: 4, yamlEnd: 13, contentStart: 17 });
  assert.equal(text.slice(split.yamlStart, split.yamlEnd), "title: A\n");
  assert.equal(text.slice(split.contentStart), "# Body\n");
});

test("split edge cases: empty block, closing fence at end of file, no newline after", () => {
  assert.deepEqual(splitFrontmatter("---\n---\nbody"), { exists: true, bom: false, eol: "\n", yamlStart: 4, yamlEnd: 4, contentStart: 8 });
  const atEnd = splitFrontmatter("---\na: 1\n---");
  assert.equal(atEnd.exists, true);
  assert.equal(atEnd.contentStart, 12);
  for (const notFrontmatter of ["", "---", "--- \na: 1\n---\n", "----\na: 1\n---\n", " ---\na: 1\n---\n", "x\n---\na: 1\n---\n", "---\na: 1\n--- \n", "---\na: 1\n----\n"]) {
    const split = splitFrontmatter(notFrontmatter);
    assert.equal(split.exists, false, JSON.stringify(notFrontmatter));
    assert.equal(split.contentStart, 0);
  }
});

test("wiki/bom-crlf.md: the BOM is reported and counted, CRLF is detected", () => {
  const text = edge("wiki/bom-crlf.md");
  assert.equal(text.charCodeAt(0), 0xfeff);
  const split = splitFrontmatter(text);
  assert.equal(split.exists, true);
  assert.equal(split.bom, true);
  assert.equal(split.eol, "\r\n");
  assert.equal(split.yamlStart, 1 + "---\r\n".length);
  assert.equal(text.slice(split.yamlStart, split.yamlEnd), "title: BOM and CRLF\r\ntags: crlf\r\n");
  assert.ok(text.slice(split.contentStart).startsWith("# BOM and CRLF\r\n"));
  const parsed = parseFrontmatter(text);
  assert.deepEqual(parsed.data, { title: "BOM and CRLF", tags: "crlf" });
  const noBom = splitFrontmatter(text.slice(1));
  assert.equal(noBom.bom, false);
  assert.equal(noBom.yamlStart, split.yamlStart - 1);
});

test("wiki/dots-end.md and wiki/unterminated.md have no frontmatter", () => {
  for (const file of ["wiki/dots-end.md", "wiki/unterminated.md"]) {
    const parsed = parseFrontmatter(edge(file));
    assert.equal(parsed.split.exists, false, file);
    assert.equal(parsed.document, null);
    assert.equal(parsed.data, null);
    assert.equal(parsed.error, null);
  }
});

test("wiki/hr-not-frontmatter.md: a later --- line is not frontmatter", () => {
  assert.equal(splitFrontmatter(edge("wiki/hr-not-frontmatter.md")).exists, false);
});

test("dates and timestamps stay strings; comments and order survive in the document", () => {
  const text = edge("wiki/index.md");
  const parsed = parseFrontmatter(text);
  assert.equal(parsed.error, null);
  assert.deepEqual(parsed.data, {
    title: "Index",
    tags: ["hub", "Topic/Knowledge"],
    aliases: ["Start", "Home page"],
    created: "2026-01-05",
  });
  assert.match(parsed.document?.toString() ?? "", /^# a comment that must survive a frontmatter edit\n/);
  assert.match(parsed.document?.toString() ?? "", /# nested tag, mixed case, trailing comment/);
  assert.deepEqual(Object.keys(parsed.data ?? {}), ["title", "tags", "aliases", "created"]);
  const idea = parseFrontmatter(edge("inbox/2026-01-06-0930-idea.md"));
  assert.equal(idea.data?.["captured"], "2026-01-06T09:30:00Z");
  assert.equal(parseFrontmatter(edge("journal/2026/2026-01-05.md")).data?.["title"], "2026-01-05");
});

test("invalid YAML gives a null map and an error naming the file line, not the content", () => {
  const secret = "hunter2-secret-value";
  const text = `---\ntitle: ok\ntitle: ${secret}\n---\nbody\n`;
  const parsed = parseFrontmatter(text);
  assert.equal(parsed.data, null);
  assert.ok(parsed.document);
  assert.match(parsed.error ?? "", /line 3/);
  assert.match(parsed.error ?? "", /DUPLICATE_KEY/);
  assert.ok(!(parsed.error ?? "").includes(secret));

  const unclosed = parseFrontmatter(`---\ntags: [a, ${secret}\n---\n`);
  assert.equal(unclosed.data, null);
  assert.ok(unclosed.error && !unclosed.error.includes(secret));

  const alias = parseFrontmatter("---\nk: *nowhere\n---\n");
  assert.equal(alias.data, null);
  assert.ok(alias.error);
});

test("YAML that is not a map has no properties; an empty block is an empty map", () => {
  const scalar = parseFrontmatter("---\njust some text\n---\n");
  assert.equal(scalar.data, null);
  assert.match(scalar.error ?? "", /not a map/);
  assert.equal(parseFrontmatter("---\n- a\n- b\n---\n").data, null);
  assert.deepEqual(parseFrontmatter("---\n---\n").data, {});
  assert.deepEqual(parseFrontmatter("---\n# only a comment\n---\n").data, {});
});

test("an anchor whose value holds an alias of itself gives no properties and says why; shared aliases still resolve", () => {
  for (const yaml of ["a: &x [*x]", "b: &y\n  c: *y", "list: &l\n  - one\n  - *l"]) {
    const parsed = parseFrontmatter(`---\n${yaml}\n---\nbody\n`);
    assert.equal(parsed.data, null, yaml);
    assert.match(parsed.error ?? "", /contains an alias of itself/, yaml);
  }
  assert.deepEqual(parseFrontmatter("---\na: &x [1, 2]\nb: *x\nc: {d: *x}\n---\n").data, { a: [1, 2], b: [1, 2], c: { d: [1, 2] } });
});

test("templates/meeting.md: placeholders parse as YAML (a flow map), not as an error", () => {
  const parsed = parseFrontmatter(edge("templates/meeting.md"));
  assert.equal(parsed.error, null);
  assert.equal(parsed.data?.["title"], "{{title}}");
  assert.deepEqual(parsed.data?.["tags"], ["meeting"]);
});

test("frontmatterData agrees with the full parser", () => {
  const texts = [
    edge("wiki/index.md"),
    edge("wiki/bom-crlf.md"),
    edge("projects/alpha/plan.md"),
    edge("templates/meeting.md"),
    "---\na: 1\na: 2\n---\n",
    "---\njust text\n---\n",
    "no frontmatter",
  ];
  for (const text of texts) {
    assert.deepEqual(frontmatterData(text, splitFrontmatter(text)), parseFrontmatter(text).data);
  }
});

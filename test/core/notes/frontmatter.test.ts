import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import {
  FRONTMATTER_LIMIT_BYTES,
  FrontmatterParses,
  frontmatterData,
  frontmatterParseCount,
  MAX_FRONTMATTER_ALIASES,
  oversizeFrontmatter,
  parseFrontmatter,
  splitFrontmatter,
} from "../../../src/core/notes/frontmatter";
import { parseNote } from "../../../src/core/notes/structure";
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

/** `count` lines `key<n>: value <n>`: frontmatter of many small keys, as big as asked. */
function manyKeys(bytes: number, line: (n: number) => string = (n) => `key${n}: value ${n}`): string {
  const lines: string[] = [];
  for (let n = 0, size = 0; size < bytes; n++) {
    lines.push(line(n));
    size += lines[lines.length - 1]!.length + 1;
  }
  return `${lines.join("\n")}\n`;
}

test("duplicate keys are refused as before: the earliest one, nested and flow maps included, keys equal by value", () => {
  const refused: Array<[string, number, number]> = [
    ["a: 1\nb: 2\na: 3", 4, 1],
    ["a:\n  x: 1\n  x: 2\na: 3", 4, 3],
    ["a: 1\na:\n  x: 1\n  x: 2", 3, 1],
    ["m: {a: 1, b: 2, a: 3}", 2, 17],
    ["- a: 1\n  a: 2", 3, 3],
    ["1: a\n1.0: b", 3, 1],
    ["~: a\nnull: b", 3, 1],
    ["true: 1\nTrue: 2", 3, 1],
    ["0x10: a\n16: b", 3, 1],
  ];
  for (const [yaml, line, column] of refused) {
    const parsed = parseFrontmatter(`---\n${yaml}\n---\nbody\n`);
    assert.equal(parsed.data, null, yaml);
    assert.equal(parsed.error, `The frontmatter YAML is invalid at line ${line} (column ${column}) of the file: a key appears twice [DUPLICATE_KEY].`, yaml);
  }
  // A string and a number, two NaNs, and a map in a list after another are not duplicates.
  assert.deepEqual(parseFrontmatter("---\n'1': a\n1: b\n---\n").data, { 1: "b" });
  assert.equal(parseFrontmatter("---\n.nan: a\n.nan: b\n---\n").error, null);
  assert.deepEqual(parseFrontmatter("---\nl: [a: 1, a: 2]\n---\n").data, { l: [{ a: 1 }, { a: 2 }] });
  // Another error before the duplicate is the one reported.
  assert.match(parseFrontmatter("---\nb: [\na: 1\na: 2\n---\n").error ?? "", /\[(?!DUPLICATE_KEY)[A-Z_]+\]\.$/);
});

test("a thousand keys, the last one repeating the first, are one parse with the duplicate found", () => {
  const before = frontmatterParseCount();
  const parsed = parseFrontmatter(`---\n${manyKeys(20_000)}key0: again\n---\n`);
  assert.equal(frontmatterParseCount() - before, 1);
  assert.match(parsed.error ?? "", /a key appears twice \[DUPLICATE_KEY\]/);
});

test("aliases: more than the limit, or expanding past what frontmatter of the size limit holds, give no properties", () => {
  const anchors = Array.from({ length: MAX_FRONTMATTER_ALIASES }, (_, n) => `a${n}: &x${n} v`).join("\n");
  const used = (count: number): string => Array.from({ length: count }, (_, n) => `b${n}: *x${n % MAX_FRONTMATTER_ALIASES}`).join("\n");
  assert.equal(parseFrontmatter(`---\n${anchors}\n${used(MAX_FRONTMATTER_ALIASES)}\n---\n`).data?.["b99"], "v");
  const over = parseFrontmatter(`---\n${anchors}\n${used(MAX_FRONTMATTER_ALIASES + 1)}\n---\n`);
  assert.equal(over.data, null);
  assert.match(over.error ?? "", /uses 101 aliases/);

  // Ten times ten, nine levels deep: 10^9 values once written out, from 90 aliases.
  const levels = ["l0: &l0 [x, x, x, x, x, x, x, x, x, x]"];
  for (let level = 1; level < 10; level++) levels.push(`l${level}: &l${level} [${Array(10).fill(`*l${level - 1}`).join(", ")}]`);
  const laughs = parseFrontmatter(`---\n${levels.join("\n")}\n---\n`);
  assert.equal(laughs.data, null);
  assert.match(laughs.error ?? "", /aliases expand to more than 65536 values/);
});

test("frontmatter over the size limit is not parsed: no properties, its size said, the body still parsed", () => {
  const yaml = manyKeys(1024 * 1024);
  const text = `---\n${yaml}---\n# Body\n\nSee [[other]].\n`;
  const before = frontmatterParseCount();
  const parsed = parseFrontmatter(text);
  assert.equal(parsed.data, null);
  assert.equal(parsed.document, null);
  assert.equal(parsed.oversize, Buffer.byteLength(yaml));
  assert.match(parsed.error ?? "", /over the limit of 65536 bytes/);
  assert.equal(frontmatterData(text, splitFrontmatter(text)), null);
  const cache = parseNote(text);
  assert.equal(cache.frontmatter, undefined);
  assert.ok(cache.frontmatterPosition);
  assert.deepEqual(cache.links?.map((link) => link.link), ["other"]);
  assert.equal(frontmatterParseCount(), before);
});

test("the limit counts UTF-8 bytes: just under it is parsed, a byte over is not", () => {
  const fill = (bytes: number): string => `k: "${"é".repeat(Math.floor((bytes - 6) / 2))}${"x".repeat((bytes - 6) % 2)}"\n`;
  const under = fill(FRONTMATTER_LIMIT_BYTES - 1);
  assert.equal(Buffer.byteLength(under), FRONTMATTER_LIMIT_BYTES - 1);
  assert.equal(oversizeFrontmatter(`---\n${under}---\n`), null);
  assert.equal(typeof parseFrontmatter(`---\n${under}---\n`).data?.["k"], "string");
  const over = `${under}x\n`;
  assert.equal(oversizeFrontmatter(`---\n${over}---\n`), FRONTMATTER_LIMIT_BYTES + 1);
  assert.equal(oversizeFrontmatter(`---\n${"é".repeat(FRONTMATTER_LIMIT_BYTES / 2)}x\n---\n`), FRONTMATTER_LIMIT_BYTES + 2);
  assert.equal(parseFrontmatter(`---\n${over}---\n`).data, null);
});

test("one operation's parses: the same YAML is parsed once, whoever asks", () => {
  const text = `---\n${manyKeys(2000, (n) => `key${n}: value ${n} # not the simple subset`)}---\nbody\n`;
  const parses = new FrontmatterParses();
  const before = frontmatterParseCount();
  const first = parseFrontmatter(text, parses);
  assert.equal(parseFrontmatter(`${text}more body\n`, parses).document, first.document);
  assert.equal(frontmatterData(text, splitFrontmatter(text), parses), first.data);
  assert.equal(parseNote(text, parses).frontmatter, first.data);
  assert.equal(frontmatterParseCount() - before, 1);
  parseFrontmatter(text);
  assert.equal(frontmatterParseCount() - before, 2, "without the operation's parses, a parse is a parse");
});

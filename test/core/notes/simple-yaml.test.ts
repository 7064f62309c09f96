import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { parseDocument } from "yaml";
import { parseSimpleYamlMap } from "../../../src/core/notes/simple-yaml";

/** What the full parser makes of the YAML, or undefined when it is invalid or not a map. */
function fullParse(yaml: string): unknown {
  const document = parseDocument(yaml, { schema: "core", uniqueKeys: true });
  if (document.errors.length > 0) return undefined;
  try {
    const value: unknown = document.toJS();
    if (value === null) return {};
    return typeof value === "object" && !Array.isArray(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

test("the common frontmatter shapes take the fast path and match the yaml package", () => {
  const samples = [
    "title: Alpha plan\nstatus: active\ndepends_on: [\"[[projects/beta/plan]]\"]\ndue: 2026-03-01\n",
    "tags: [shar]\ncreated: 2024-04-29T13:19:20\n",
    "tags:\n  - a\n  - b/c\naliases:\n- One\n- Two words\nn: 12\nf: 1.50\nx: 0x1F\nt: true\nu: ~\nempty:\n",
    "title: 'single quoted'\nother: \"double: quoted\"\nplain: it's fine\nurl: https://example.com/a?b=c\n",
    "title: BOM and CRLF\r\ntags: crlf\r\n",
    "",
    "at: 10:30\nurl: http://x.y/z\nnot_number: 1:2\n",
    "nan: x\nfalsy: False\nnone: Null\ndash:\n  -\n  - x-\n",
  ];
  for (const yaml of samples) {
    const fast = parseSimpleYamlMap(yaml);
    assert.notEqual(fast, undefined, JSON.stringify(yaml));
    assert.deepEqual(fast, fullParse(yaml), JSON.stringify(yaml));
  }
});

test("anything outside the subset is left to the full parser", () => {
  const outside = [
    "# comment\ntitle: x\n",
    "title: x # trailing\n",
    "a: 1\na: 2\n",
    "nested:\n  key: value\n",
    "multi: first\n  continued\n",
    "q: \"esc\\n\"\n",
    "anchor: &a x\nref: *a\n",
    "tagged: !!str 5\n",
    "block: |\n  text\n",
    "\"quoted key\": 1\n",
    "123: number key\n",
    "null: key\n",
    "neg: -5\n",
    "flow: {a: 1}\n",
    "list: [a, [b]]\n",
    "\ttab: x\n",
    "key:value\n",
    "a: b\rc: d\n",
    "a: b\r\r\n",
    "True: key\n",
    "0x1F: key\n",
    "~: key\n",
    "key : spaced\n",
    "list: [a:b]\n",
  ];
  for (const yaml of outside) assert.equal(parseSimpleYamlMap(yaml), undefined, JSON.stringify(yaml));
});

test("whenever the fast path answers, it answers what the yaml package does", () => {
  const word = fc.stringMatching(/^[A-Za-z][A-Za-z0-9_-]{0,8}$/);
  const scalarText = fc.oneof(
    word,
    fc.constantFrom("true", "False", "NULL", "~", "12", "+3", "0o17", "0x1f", "1.5", "1.50", "2e3", ".inf", ".NaN", "-1", "yes", "no"),
    fc.constantFrom("2026-01-05", "2026-01-06T09:30:00Z", "a b  c", "a:b", "it's", "[[x]]", "x, y", "é ü", "a\u00a0", "@x", "`x`", "%x"),
    fc.string({ maxLength: 8 }),
  );
  const value = fc.oneof(
    scalarText,
    scalarText.map((s) => `"${s}"`),
    scalarText.map((s) => `'${s}'`),
    fc.array(fc.oneof(scalarText, scalarText.map((s) => `"${s}"`)), { maxLength: 4 }).map((items) => `[${items.join(", ")}]`),
    fc.constant(""),
  );
  const line = fc.oneof(
    fc.tuple(word, value).map(([key, text]) => `${key}: ${text}`),
    fc.tuple(word, value).map(([key, text]) => `${key}:${text}`),
    fc.tuple(fc.constantFrom("", "  ", " "), value).map(([indent, text]) => `${indent}- ${text}`),
    fc.constantFrom("", "# c", "  nested: 1", "---", "..."),
  );
  const yaml = fc.tuple(fc.array(line, { maxLength: 8 }), fc.constantFrom("\n", "\r\n")).map(([lines, eol]) => lines.join(eol) + eol);

  let answered = 0;
  fc.assert(
    fc.property(yaml, (source) => {
      const fast = parseSimpleYamlMap(source);
      if (fast === undefined) return;
      answered++;
      assert.deepEqual(fast, fullParse(source));
    }),
    { numRuns: 3000 },
  );
  assert.ok(answered > 300, `the fast path answered only ${answered} of 3000`);
});

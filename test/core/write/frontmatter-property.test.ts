// Property: a frontmatter write that changes nothing is byte-identical, and setting one key changes no
// other line, for generated frontmatter with comments, quoting, flow and block lists.
import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { parseFrontmatter } from "../../../src/core/notes/frontmatter";
import { editFrontmatter } from "../../../src/core/write/frontmatter-edit";

const key = fc.stringMatching(/^[a-z][a-z0-9_]{0,10}$/);
const word = fc.stringMatching(/^[A-Za-z][A-Za-z0-9 ]{0,12}[A-Za-z0-9]$/);
const value = fc.oneof(
  word,
  word.map((text) => `"${text}"`),
  fc.integer({ min: 0, max: 99999 }).map(String),
  fc.array(word, { minLength: 1, maxLength: 3 }).map((items) => `[${items.join(", ")}]`),
  fc.array(word, { minLength: 1, maxLength: 3 }).map((items) => items.map((item) => `\n  - ${item}`).join("")),
);
const entry = fc.record({ key, value, comment: fc.option(word, { nil: undefined }) });

const document = fc
  .uniqueArray(entry, { minLength: 1, maxLength: 8, selector: (item) => item.key })
  .chain((entries) =>
    fc.record({ entries: fc.constant(entries), crlf: fc.boolean(), body: word, leading: fc.option(word, { nil: undefined }) }),
  )
  .map(({ entries, crlf, body, leading }) => {
    const lines = entries.map((item) => `${item.key}: ${item.value}${item.comment && !item.value.startsWith("\n") ? `  # ${item.comment}` : ""}`);
    const yaml = [...(leading ? [`# ${leading}`] : []), ...lines].join("\n");
    const text = `---\n${yaml}\n---\n# ${body}\n`;
    return { text: crlf ? text.replace(/\n/g, "\r\n") : text, keys: entries.map((item) => item.key) };
  });

test("an edit with no changes returns the exact bytes", () => {
  fc.assert(
    fc.property(document, ({ text }) => {
      assert.equal(editFrontmatter(text, [], { createIfMissing: false }), text);
    }),
    { numRuns: 500 },
  );
});

test("setting one key leaves every other line of the document untouched", () => {
  fc.assert(
    fc.property(document, fc.nat(), word, ({ text, keys }, pick, replacement) => {
      const target = keys[pick % keys.length]!;
      const edited = editFrontmatter(text, [{ key: target, value: replacement }], { createIfMissing: false });
      assert.equal(parseFrontmatter(edited).data?.[target], replacement);
      const eol = text.includes("\r\n") ? "\r\n" : "\n";
      const isTouched = (line: string): boolean => line.startsWith(`${target}:`) || line.startsWith("  - ");
      const before = text.split(eol).filter((line) => !isTouched(line));
      const after = edited.split(eol).filter((line) => !isTouched(line));
      assert.deepEqual(after, before);
    }),
    { numRuns: 500 },
  );
});

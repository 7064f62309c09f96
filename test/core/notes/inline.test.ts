import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { InlineScanner, maskCodeSpans, scanInline, trailingBlockId, type InlineSink, type SourceLine } from "../../../src/core/notes/inline";

function scan(text: string): InlineSink {
  const sink: InlineSink = { links: [], embeds: [], tags: [] };
  scanInline({ text, line: 0, offset: 0 }, 0, sink);
  return sink;
}

const links = (text: string): string[] => scan(text).links.map((l) => l.link);
const embeds = (text: string): string[] => scan(text).embeds.map((l) => l.link);
const tags = (text: string): string[] => scan(text).tags.map((t) => t.tag);

test("code spans hide their content and keep offsets", () => {
  assert.equal(maskCodeSpans("a `[[x]]` b", 0).length, "a `[[x]]` b".length);
  assert.deepEqual(links("a `[[x]]` b [[y]]"), ["y"]);
  assert.deepEqual(links("``code with ` inside [[x]]`` [[y]]"), ["y"]);
  assert.deepEqual(links("an unmatched ` backtick [[y]]"), ["y"]);
  assert.deepEqual(links("`a` [[b]] `c` ``` [[d]]"), ["b", "d"]);
  assert.deepEqual(tags("`#code` #real"), ["#real"]);
});

test("wiki links: alias, anchor, table-escaped pipe, nesting, empty and escaped", () => {
  const [link] = scan("see [[note#Heading|shown | text]]!").links;
  assert.deepEqual(link, {
    link: "note#Heading",
    original: "[[note#Heading|shown | text]]",
    displayText: "shown | text",
    position: { start: { line: 0, col: 4, offset: 4 }, end: { line: 0, col: 33, offset: 33 } },
  });
  assert.deepEqual(scan("| [[Basic formatting syntax\\|Markdown]] |").links.map((l) => [l.link, l.displayText]), [["Basic formatting syntax", "Markdown"]]);
  assert.deepEqual(embeds("![[Engelbart.jpg\\|100]]"), ["Engelbart.jpg"]);
  assert.deepEqual(links("[[a [[b]]"), ["b"]);
  assert.deepEqual(links("[[[c]]"), ["c"]);
  assert.deepEqual(links("[[]] [[ ]] [[|alias]]"), []);
  assert.deepEqual(links("\\[[escaped]] and [[real]]"), ["real"]);
  assert.deepEqual(links("%%a comment with [[inside]]%%"), ["inside"]);
  assert.deepEqual(links("[[unclosed"), []);
  assert.deepEqual(embeds("\\![[not an embed]]"), []);
  assert.deepEqual(links("\\![[not an embed]]"), ["not an embed"]);
});

test("markdown links: local files only, URL-decoded, titles and angle brackets", () => {
  assert.deepEqual(links("[a](My%20Note.md) [b](<Other Note.md>) [c](x.md \"title\") [d](note.md#Head)"), [
    "My Note.md",
    "Other Note.md",
    "x.md",
    "note.md#Head",
  ]);
  assert.deepEqual(links("[ext](https://example.com) [m](mailto:a@b.c) [o](obsidian://open?x) [e]()"), []);
  assert.deepEqual(links("[bad](100%.md)"), ["100%.md"]);
  assert.deepEqual(links("[with (parens)](Note%20(draft).md)"), ["Note (draft).md"]);
  assert.deepEqual(links("[spaces](My Note.md) is not a link"), []);
  assert.deepEqual(links("[^1] and [ref][x] are not links"), []);
  const image = scan("![alt text](Attachments/diagram.png)").embeds[0];
  assert.equal(image?.link, "Attachments/diagram.png");
  assert.equal(image?.displayText, "alt text");
  assert.equal(image?.original, "![alt text](Attachments/diagram.png)");
  assert.deepEqual(embeds("![remote](https://example.com/x.png)"), []);
});

test("tags: after whitespace or at line start, Obsidian's character set, not all digits", () => {
  assert.deepEqual(tags("#hub #Topic/Knowledge #project/alpha/ not#this &#35;entity"), ["#hub", "#Topic/Knowledge", "#project/alpha/"]);
  assert.deepEqual(tags("#1984 #y1984 #snake_case #kebab-case #日本語 #émoji🙂"), ["#y1984", "#snake_case", "#kebab-case", "#日本語", "#émoji🙂"]);
  assert.deepEqual(tags("#tag, #end. (#paren) #a.b #x's"), ["#tag", "#end", "#a", "#x"]);
  assert.deepEqual(tags("\\#escaped # alone ## #"), []);
  assert.deepEqual(tags("https://example.com/#anchor [[note#heading]]"), []);
});

test("block ids end a line after whitespace or an embed, never inside a formula", () => {
  assert.deepEqual(trailingBlockId("A paragraph. ^bucket-def"), { id: "bucket-def", col: 13 });
  assert.deepEqual(trailingBlockId("^alone  "), { id: "alone", col: 0 });
  assert.deepEqual(trailingBlockId("![[img.png]]^after-embed"), { id: "after-embed", col: 12 });
  assert.equal(trailingBlockId("e = mc^2"), null);
  assert.equal(trailingBlockId("a ^id with text after"), null);
  assert.equal(trailingBlockId("a ^bad_id"), null);
});

test("a hostile line stays linear", () => {
  const hostile = `${"[".repeat(20000)}${"`".repeat(1)}${"[[".repeat(20000)}${"](".repeat(20000)}${"``x".repeat(5000)}`;
  const started = performance.now();
  scan(hostile);
  scan("#a ".repeat(30000));
  // A hang guard against super-linear backtracking, not a speed measurement (that is the bench's job).
  assert.ok(performance.now() - started < 10_000, `took ${(performance.now() - started).toFixed(0)} ms`);
});

test("a note's lines scanned by one scanner find what each line scanned alone finds, in any order and again", () => {
  const piece = fc.constantFrom("[[a]]", "![[b|c]]", "[[", "]]", "[x](y.md)", "#tag", "#1", " ", "`", "``", "\\", "\\[[e]]", "word", "!", "#");
  const lineText = fc.array(piece, { maxLength: 8 }).map((parts) => parts.join(""));
  const note = fc.tuple(fc.array(lineText, { minLength: 1, maxLength: 6 }), fc.array(fc.nat(4), { minLength: 6, maxLength: 6 }));
  fc.assert(
    fc.property(note, ([texts, froms]) => {
      const text = texts.join("\n");
      let offset = 0;
      const sourceLines: Array<[SourceLine, number]> = texts.map((lineText, index) => {
        const line = { text: lineText, line: index, offset };
        offset += lineText.length + 1;
        return [line, Math.min(froms[index] ?? 0, lineText.length)];
      });
      const alone: InlineSink = { links: [], embeds: [], tags: [] };
      for (const [line, from] of sourceLines) scanInline(line, from, alone);
      const inOrder: InlineSink = { links: [], embeds: [], tags: [] };
      const scanner = new InlineScanner(text, inOrder);
      for (const [line, from] of sourceLines) scanner.scan(line, from);
      assert.deepEqual(inOrder, alone);

      const backwardsTwice: InlineSink = { links: [], embeds: [], tags: [] };
      const again = new InlineScanner(text, backwardsTwice);
      const reversedTwice: InlineSink = { links: [], embeds: [], tags: [] };
      for (const [line, from] of [...sourceLines].reverse()) {
        for (let time = 0; time < 2; time++) {
          again.scan(line, from);
          scanInline(line, from, reversedTwice);
        }
      }
      assert.deepEqual(backwardsTwice, reversedTwice);
    }),
    { numRuns: 2000 },
  );
});

test("characters inside code spans never start anything, even when a search over the note lands on them", () => {
  const text = "`[[no]] #no \\[` [[yes]] #yes\nplain `#no` #yes2";
  const sink: InlineSink = { links: [], embeds: [], tags: [] };
  const scanner = new InlineScanner(text, sink);
  const first = text.indexOf("\n");
  scanner.scan({ text: text.slice(0, first), line: 0, offset: 0 }, 0);
  scanner.scan({ text: text.slice(first + 1), line: 1, offset: first + 1 }, 0);
  assert.deepEqual(sink.links.map((l) => l.link), ["yes"]);
  assert.deepEqual(sink.tags.map((t) => [t.tag, t.position.start.line]), [["#yes", 0], ["#yes2", 1]]);
});

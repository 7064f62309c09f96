import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import fc from "fast-check";
import { ToolError } from "../../../src/core/errors";
import { applySectionEdit, SECTION_EDIT_MODES, type SectionEditMode, type SectionEditRequest } from "../../../src/core/notes/section-edit";
import { findSection } from "../../../src/core/notes/sections";
import { parseNote } from "../../../src/core/notes/structure";
import { EDGE_VAULT } from "../../support/vaults";

const bigSections = readFileSync(path.join(EDGE_VAULT, "wiki/big-sections.md"), "utf8");
const rateLimiting = readFileSync(path.join(EDGE_VAULT, "wiki/rate-limiting.md"), "utf8");

function edit(text: string, request: SectionEditRequest): string {
  return applySectionEdit(text, parseNote(text), request);
}

function refusal(text: string, request: SectionEditRequest): ToolError {
  try {
    edit(text, request);
  } catch (error) {
    if (error instanceof ToolError) return error;
    throw error;
  }
  assert.fail(`expected ${request.mode} "${request.heading ?? ""}" to be refused`);
}

const BIG_HEAD = "# Big sections\n\n## A\n\na1\n\n";
const BIG_TAIL = "## C\n\nc1\n";

test("every section mode on big-sections.md, section B with its sub-section B.1", () => {
  const cases: Array<[SectionEditMode, string, string]> = [
    ["replace_section", "new", "## B\n\nnew\n\n"],
    ["append_to_section", "new", "## B\n\nb1\n\n### B.1\n\nb11\n\nnew\n\n"],
    ["prepend_to_section", "new", "## B\n\nnew\n\nb1\n\n### B.1\n\nb11\n\n"],
    ["insert_before_section", "new", "new\n\n## B\n\nb1\n\n### B.1\n\nb11\n\n"],
    ["insert_after_section", "new", "## B\n\nb1\n\n### B.1\n\nb11\n\nnew\n\n"],
    ["delete_section", "", ""],
  ];
  for (const [mode, content, middle] of cases) {
    assert.equal(edit(bigSections, { mode, heading: "B", content }), BIG_HEAD + middle + BIG_TAIL, mode);
  }
});

test("a sub-section is a section of its own: appending to B.1 stays inside B", () => {
  const result = edit(bigSections, { mode: "append_to_section", heading: "B.1", content: "more" });
  assert.equal(result, BIG_HEAD + "## B\n\nb1\n\n### B.1\n\nb11\n\nmore\n\n" + BIG_TAIL);
});

test("replace_section keeps the heading unless the content brings its own", () => {
  const renamed = edit(bigSections, { mode: "replace_section", heading: "A", content: "## A prime\n\nnew a\n" });
  assert.equal(renamed, "# Big sections\n\n## A prime\n\nnew a\n\n## B\n\nb1\n\n### B.1\n\nb11\n\n" + BIG_TAIL);
  const cleared = edit(bigSections, { mode: "replace_section", heading: "C", content: "" });
  assert.equal(cleared, bigSections.slice(0, bigSections.indexOf("c1")).replace(/\n+$/, "\n"));
});

test("note modes: append at the end, prepend after the frontmatter", () => {
  assert.equal(edit(bigSections, { mode: "append_to_note", content: "end" }), bigSections + "\nend\n");
  const split = rateLimiting.indexOf("# Rate limiting");
  assert.equal(edit(rateLimiting, { mode: "prepend_to_note", content: "> [!note] first" }), rateLimiting.slice(0, split) + "> [!note] first\n\n" + rateLimiting.slice(split));
  assert.equal(edit(bigSections, { mode: "prepend_to_note", content: "start" }), "start\n\n" + bigSections);
});

test("lookup: exact, then case-insensitive, then prefix; leading #s ignored", () => {
  const exact = edit(rateLimiting, { mode: "append_to_section", heading: "Leaky bucket", content: "x" });
  assert.ok(exact.includes("Drains at a fixed rate.\n\nx\n\n## Offene Fragen"));
  const caseless = edit(rateLimiting, { mode: "append_to_section", heading: "leaky BUCKET", content: "x" });
  assert.equal(caseless, exact);
  const prefix = edit(rateLimiting, { mode: "append_to_section", heading: "Leak", content: "x" });
  assert.equal(prefix, exact);
  const hashes = edit(rateLimiting, { mode: "append_to_section", heading: "## Leaky bucket", content: "x" });
  assert.equal(hashes, exact);
  // "B" matches the heading B exactly even though "B.1" and "Big sections" start with it.
  assert.equal(edit(bigSections, { mode: "delete_section", heading: "b", content: "" }), BIG_HEAD + BIG_TAIL);
});

test("the section under Token bucket includes its ### Details sub-section", () => {
  const result = edit(rateLimiting, { mode: "append_to_section", heading: "Token bucket", content: "appended" });
  assert.ok(result.includes("Refill rate is count divided by window.\n\nappended\n\n## Leaky bucket"));
});

test("an ambiguous heading is refused with the candidates; a missing one with the available headings", () => {
  const twice = "# Log\n\n## Notes\n\none\n\n## Notes\n\ntwo\n";
  const ambiguous = refusal(twice, { mode: "append_to_section", heading: "Notes", content: "x" });
  assert.equal(ambiguous.code, "invalid_argument");
  assert.match(ambiguous.message, /matches 2 headings/);
  assert.match(ambiguous.message, /note_outline/);
  const missing = refusal(rateLimiting, { mode: "append_to_section", heading: "not a heading in a tilde fence", content: "x" });
  assert.equal(missing.code, "not_found");
  assert.match(missing.message, /Available headings/);
  assert.match(missing.message, /create: true/);
  const missingDelete = refusal(rateLimiting, { mode: "delete_section", heading: "Nope", content: "" });
  assert.equal(missingDelete.code, "not_found");
  assert.doesNotMatch(missingDelete.message, /create: true/, "create cannot help a delete");
});

test("arguments that do not fit the mode are refused with the mode to use", () => {
  const noHeading = refusal(bigSections, { mode: "append_to_section", content: "x" });
  assert.match(noHeading.message, /needs a heading.*note_outline/);
  const stray = refusal(bigSections, { mode: "append_to_note", heading: "B", content: "x" });
  assert.match(stray.message, /append_to_section/);
  const empty = refusal(bigSections, { mode: "prepend_to_section", heading: "B", content: " \n" });
  assert.match(empty.message, /content is empty/);
  const deleteWithContent = refusal(bigSections, { mode: "delete_section", heading: "B", content: "x" });
  assert.match(deleteWithContent.message, /replace_section/);
  for (const error of [noHeading, stray, empty, deleteWithContent]) assert.equal(error.code, "invalid_argument");
});

test("create: a missing heading is added at the end, its level taken from the #s given", () => {
  assert.equal(edit("", { mode: "append_to_section", heading: "Log", content: "- one", createHeading: true }), "## Log\n\n- one\n");
  assert.equal(edit(bigSections, { mode: "prepend_to_section", heading: "### Later", content: "l", createHeading: true }), bigSections + "\n### Later\n\nl\n");
  assert.equal(refusal("", { mode: "insert_after_section", heading: "Log", content: "x", createHeading: true }).code, "not_found");
});

test("list items and table rows continue the block they join; CRLF content becomes LF", () => {
  const list = "## Tasks\n\n- [ ] a\n- [ ] b\n\n## Next\n";
  assert.equal(edit(list, { mode: "append_to_section", heading: "Tasks", content: "- [ ] c\r\n" }), "## Tasks\n\n- [ ] a\n- [ ] b\n- [ ] c\n\n## Next\n");
  const table = "## T\n| a | b |\n|---|---|\n| 1 | 2 |\n## U\n";
  assert.equal(edit(table, { mode: "append_to_section", heading: "T", content: "| 3 | 4 |" }), "## T\n| a | b |\n|---|---|\n| 1 | 2 |\n| 3 | 4 |\n\n## U\n");
});

test("blank runs of 3+ collapse to 2 around the edit, and only there", () => {
  const text = "## A\n\n\n\n\na far away run\n\n## B\n\nb\n";
  const result = edit(text, { mode: "append_to_section", heading: "B", content: "\n\n\n\n\nx\n\n\n\n" });
  assert.equal(result, "## A\n\n\n\n\na far away run\n\n## B\n\nb\n\n\nx\n");
  const deleted = edit("a\n\n\n## X\n\nx\n\n\n## Y\ny\n", { mode: "delete_section", heading: "X", content: "" });
  assert.equal(deleted, "a\n\n\n## Y\ny\n");
});

test("the note ends with exactly one newline after an edit", () => {
  assert.equal(edit("## A\na", { mode: "append_to_section", heading: "A", content: "b" }), "## A\na\n\nb\n");
  assert.equal(edit("## A\na\n## B\nb\n\n\n\n", { mode: "prepend_to_section", heading: "A", content: "z" }), "## A\n\nz\n\na\n## B\nb\n");
  assert.equal(edit("---\nk: v\n---\n## A\na\n", { mode: "delete_section", heading: "A", content: "" }), "---\nk: v\n---\n");
});

// ---- property: bytes outside the edited section are unchanged --------------------------------

const lineKinds = fc.array(fc.constantFrom("heading1", "heading2", "heading3", "text", "item", "blank", "spaces"), { minLength: 1, maxLength: 25 });

function renderNote(kinds: readonly string[], frontmatter: boolean, finalNewline: boolean): { text: string; headings: string[] } {
  const headings: string[] = [];
  const lines = kinds.map((kind, index) => {
    if (kind.startsWith("heading")) {
      const name = `H${index}`;
      headings.push(name);
      return `${"#".repeat(Number(kind.slice(-1)))} ${name}`;
    }
    if (kind === "text") return `text ${index}`;
    if (kind === "item") return `- item ${index}`;
    return kind === "spaces" ? "  " : "";
  });
  const body = lines.join("\n") + (finalNewline ? "\n" : "");
  return { text: (frontmatter ? "---\ntitle: t\n---\n" : "") + body, headings };
}

function withoutTrailingBlankLines(text: string): string {
  return text.replace(/(?<=^|\n)(?:[ \t]*\n)+$/, "");
}

function trimEnd(text: string): string {
  return text.replace(/[ \t\r\n]+$/, "");
}

test("property: every byte outside the edited section is unchanged", () => {
  const sectionModes = SECTION_EDIT_MODES.filter((mode) => !mode.endsWith("_note"));
  fc.assert(
    fc.property(
      lineKinds,
      fc.boolean(),
      fc.boolean(),
      fc.nat(),
      fc.constantFrom(...sectionModes),
      fc.array(fc.constantFrom("new words", "- new item", "", "### New heading", "| cell |"), { minLength: 1, maxLength: 6 }),
      (kinds, frontmatter, finalNewline, pick, mode, contentLines) => {
        const { text, headings } = renderNote(kinds, frontmatter, finalNewline);
        fc.pre(headings.length > 0);
        const heading = headings[pick % headings.length]!;
        const content = mode === "delete_section" ? "" : contentLines.join("\n");
        fc.pre(mode === "delete_section" || mode === "replace_section" || content.trim() !== "");
        const section = findSection(text, parseNote(text), heading);
        const result = edit(text, { mode, heading, content });

        const before = text.slice(0, section.start);
        // These modes change the heading line itself, so the seam above it is part of the edit.
        const replacesHeading = mode === "replace_section" && /^\s*#/.test(content);
        const touchesBefore = mode === "insert_before_section" || mode === "delete_section" || replacesHeading;
        assert.ok(result.startsWith(touchesBefore ? withoutTrailingBlankLines(before) : before), "bytes before the section");
        assert.ok(trimEnd(result).endsWith(trimEnd(text.slice(section.end))), "bytes after the section");
        const body = frontmatter ? result.slice("---\ntitle: t\n---\n".length) : result;
        if (body !== "") assert.ok(body.endsWith("\n") && !body.endsWith("\n\n") && !/\n[ \t]+\n$/.test(body), "one final newline");
        const threeBlank = /(?:^|\n)(?:[ \t]*\n){3}/;
        if (!threeBlank.test(text)) assert.doesNotMatch(result, threeBlank, "an edit adds no run of three blank lines");
        for (const line of content.split("\n").filter((l) => l.trim() !== "")) assert.ok(result.includes(line), "the content is there");
      },
    ),
    { numRuns: 400 },
  );
});

import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { ToolError } from "../../../src/core/errors";
import { findSection } from "../../../src/core/notes/sections";
import { parseNote } from "../../../src/core/notes/structure";
import { EDGE_VAULT } from "../../support/vaults";

function refused(text: string, heading: string): ToolError {
  try {
    findSection(text, parseNote(text), heading);
  } catch (error) {
    if (error instanceof ToolError) return error;
    throw error;
  }
  assert.fail(`expected "${heading}" to be refused`);
}

const bigSections = readFileSync(path.join(EDGE_VAULT, "wiki/big-sections.md"), "utf8");

test("a section runs to the next heading of the same or a higher level", () => {
  const cache = parseNote(bigSections);
  const b = findSection(bigSections, cache, "B");
  assert.deepEqual({ heading: b.heading, level: b.level, line: b.line }, { heading: "B", level: 2, line: 6 });
  assert.equal(bigSections.slice(b.start, b.bodyStart), "## B\n");
  assert.equal(bigSections.slice(b.bodyStart, b.end), "\nb1\n\n### B.1\n\nb11\n\n");
  const sub = findSection(bigSections, cache, "B.1");
  assert.equal(sub.end, b.end, "the sub-section ends where its parent does");
  const last = findSection(bigSections, cache, "C");
  assert.equal(last.end, bigSections.length);
});

test("lookup: exact, then case-insensitive, then prefix; leading #s ignored", () => {
  const text = "# Notes\n\n## Notes on A\n\n## notes\n\n## Summary of it\n";
  const cache = parseNote(text);
  assert.equal(findSection(text, cache, "Notes").line, 0, "exact wins over the case-insensitive match");
  assert.equal(findSection(text, cache, "notes").line, 4, "exact match of the lower-case heading");
  assert.equal(findSection(text, cache, "## NOTES ON a").line, 2, "case-insensitive");
  assert.equal(findSection(text, cache, "summ").heading, "Summary of it", "prefix");
  assert.equal(findSection(text, cache, "  ### Summary of it ").line, 6);
});

test("several matches at one stage are refused with the candidates", () => {
  const text = "# Log\n\n## Meeting 1\n\n## Meeting 2\n\n## Log\n";
  const error = refused(text, "meeting");
  assert.equal(error.code, "invalid_argument");
  assert.match(error.message, /"## Meeting 1" \(line 3\)/);
  assert.match(error.message, /"## Meeting 2" \(line 5\)/);
  assert.match(error.message, /note_outline/);
  assert.equal(refused(text, "Log").code, "invalid_argument", "two exact matches are ambiguous too");
});

test("no match is not_found with the available headings (at most 20)", () => {
  const error = refused(bigSections, "Missing");
  assert.equal(error.code, "not_found");
  assert.match(error.message, /"## A" \(line 3\)/);
  assert.match(error.message, /note_outline/);
  const many = Array.from({ length: 30 }, (_, i) => `## H${i}\n`).join("\n");
  const listed = refused(many, "zzz").message;
  assert.ok(listed.includes("H19") && !listed.includes("H20 "), listed);
  assert.match(listed, /and 10 more/);
  assert.equal(refused("no headings", "x").code, "not_found");
  assert.equal(refused(bigSections, "###").code, "invalid_argument");
});

test("CRLF: bodyStart is after the whole line ending", () => {
  const text = "# A\r\nbody\r\n# B\r\n";
  const match = findSection(text, parseNote(text), "A");
  assert.equal(text.slice(match.bodyStart, match.end), "body\r\n");
});

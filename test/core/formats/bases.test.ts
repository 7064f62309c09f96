// Bases YAML: the examples of the Obsidian Help vault read as structure without problems, and each
// documented rule broken is named.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { baseStructure, parseBase } from "../../../src/core/formats/bases";
import type { ToolError } from "../../../src/core/errors";
import { HELP_VAULT } from "../../support/vaults";

/** The fenced blocks of a Help page that hold a base (they start with filters: or views:). */
function helpBases(page: string): string[] {
  const text = readFileSync(path.join(HELP_VAULT, "Bases", page), "utf8");
  return [...text.matchAll(/```(?:yaml|base)\n([\s\S]*?)```/g)].map((match) => match[1]!).filter((yaml) => /^(filters|views):/m.test(yaml) && /^views:/m.test(yaml));
}

test("the Help vault's base examples parse, with their views, formulas and properties, and no problems", () => {
  const [example] = helpBases("Bases syntax.md");
  assert.ok(example, "the syntax page has its full example");
  const structure = baseStructure(parseBase("x.base", example));
  assert.deepEqual(structure.problems, []);
  assert.deepEqual(Object.keys(structure.formulas), ["formatted_price", "ppu"]);
  assert.equal(structure.formulas.ppu, "(price / age).toFixed(2)");
  assert.deepEqual(structure.properties["file.ext"], { displayName: "Extension" });
  assert.deepEqual(structure.summaries, { customAverage: "values.mean().round(3)" });
  assert.equal(structure.views.length, 1);
  assert.deepEqual(structure.views[0]!.groupBy, { property: "note.age", direction: "DESC" });
  assert.deepEqual(structure.filters, {
    or: ['file.hasTag("tag")', { and: ['file.hasTag("book")', 'file.hasLink("Textbook")'] }, { not: ['file.hasTag("book")', 'file.inFolder("Required Reading")'] }],
  });
  const [embedded] = helpBases("Create a base.md");
  assert.ok(embedded);
  assert.deepEqual(baseStructure(parseBase("y.base", embedded)).views, [{ type: "table", name: "Table" }]);
});

test("what breaks the documented schema is listed as problems", () => {
  const structure = baseStructure(parseBase("z.base", [
    "filters:",
    "  and:",
    "    - file.hasTag(\"a\")",
    "  or:",
    "    - x > 1",
    "formulas:",
    "  total: price * qty",
    "  nested:",
    "    a: 1",
    "views:",
    "  - name: Same",
    "    order: [formula.total, formula.missing]",
    "    summaries:",
    "      formula.total: Mean",
    "  - type: cards",
    "    name: Same",
    "    limit: -3",
    "    groupBy:",
    "      property: status",
    "      direction: UP",
    "    filters:",
    "      xor: [a, b]",
    "extra: kept",
  ].join("\n")));
  const problems = structure.problems.join("\n");
  for (const expected of [
    /filters must hold exactly one of and, or, not \(it holds and and or\)/,
    /formula `nested` must be a string/,
    /views\[0\] has no type/,
    /views\[0\]\.summaries: `formula.total` uses the summary "Mean", which is neither a default summary nor defined/,
    /views\[1\]\.limit must be a whole number/,
    /views\[1\]\.groupBy\.direction must be ASC or DESC/,
    /views\[1\]\.filters has `xor`/,
    /2 views are named "Same"/,
    /`formula.missing` is used but no formula `missing` is defined/,
  ]) assert.match(problems, expected);
  assert.doesNotMatch(problems, /formula `total`|formula.total` is used/);
  assert.deepEqual(structure.other, { extra: "kept" });
});

test("invalid YAML is refused with its line and column; alias bombs are refused", () => {
  assert.throws(() => parseBase("bad.base", "views:\n  - type: table\n   name: x\n"), (error: ToolError) => {
    assert.equal(error.code, "invalid_argument");
    assert.match(error.message, /"bad.base" is not a valid base: its YAML is invalid at line 3, column \d+/);
    return true;
  });
  const bomb = ["a: &a [x, x, x, x, x, x, x, x, x]", ...Array.from({ length: 60 }, (_, i) => `k${i}: [*a, *a]`)].join("\n");
  assert.throws(() => parseBase("bomb.base", bomb), /more than 50 YAML aliases/);
  assert.throws(() => parseBase("list.base", "- a\n- b\n"), /must be a map/);
});

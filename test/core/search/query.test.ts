import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { isToolError, ToolError } from "../../../src/core/errors";
import { MAX_QUERY_LENGTH, parseQuery, type ParsedQuery } from "../../../src/core/search/query";

function names(terms: ParsedQuery["terms"]): string[] {
  return terms.map(({ term }) => term);
}

function rejection(input: string): ToolError {
  try {
    parseQuery(input);
  } catch (error) {
    assert.ok(isToolError(error), `expected a ToolError for ${JSON.stringify(input)}`);
    assert.equal(error.code, "invalid_query");
    return error;
  }
  assert.fail(`expected ${JSON.stringify(input)} to be refused`);
}

test("plain words are optional and loose: inflections, and near spellings if the vault lacks them", () => {
  const query = parseQuery("token Bucket");
  assert.deepEqual(query.terms, [
    { term: "token", prefix: false, weak: false, match: "loose" },
    { term: "bucket", prefix: false, weak: false, match: "loose" },
  ]);
  assert.deepEqual([query.required, query.excluded, query.phrases, query.excludedPhrases, query.groups], [[], [], [], [], []]);
});

test("stop words (of every supported language) match exactly and are weak", () => {
  const query = parseQuery("the sync of a note para les");
  const byName = new Map(query.terms.map((term) => [term.term, term]));
  assert.deepEqual(byName.get("sync"), { term: "sync", prefix: false, weak: false, match: "loose" });
  assert.deepEqual(byName.get("the"), { term: "the", prefix: false, weak: true, match: "exact" });
  assert.deepEqual(byName.get("a"), { term: "a", prefix: false, weak: true, match: "exact" });
  assert.equal(byName.get("para")?.weak, true);
  assert.equal(byName.get("les")?.weak, true);
});

test("numbers are matched exactly", () => {
  assert.deepEqual(parseQuery("2024").terms, [{ term: "2024", prefix: false, weak: false, match: "exact" }]);
});

test("query words are normalised like the notes (diacritics, case)", () => {
  assert.deepEqual(names(parseQuery("Größe Über").terms), ["grosse", "uber"]);
});

const operators: Array<[string, string, (query: ParsedQuery) => void]> = [
  ['"exact phrase"', "a quoted phrase is required", (q) => assert.deepEqual(q.phrases, [["exact", "phrase"]])],
  ["\u201ctoken bucket\u201d", "typographic quotes work too", (q) => assert.deepEqual(q.phrases, [["token", "bucket"]])],
  ['"bucket"', "a quoted single word is required and exact", (q) =>
    assert.deepEqual(q.required, [{ term: "bucket", prefix: false, weak: false, match: "exact" }])],
  ["+bucket leak", "+word is required, with its inflections, without near spellings", (q) => {
    assert.deepEqual(q.required, [{ term: "bucket", prefix: false, weak: false, match: "stem" }]);
    assert.deepEqual(names(q.terms), ["leak"]);
  }],
  ["+bucket bucket", "a required word is not also optional", (q) => {
    assert.deepEqual(names(q.required), ["bucket"]);
    assert.deepEqual(q.terms, []);
  }],
  ["sync -mobile", "-word is excluded, exactly", (q) => {
    assert.deepEqual(q.excluded, [{ term: "mobile", prefix: false, weak: false, match: "exact" }]);
    assert.deepEqual(names(q.terms), ["sync"]);
  }],
  ["sync NOT mobile", "NOT word is excluded", (q) => assert.deepEqual(names(q.excluded), ["mobile"])],
  ["sync -draft*", "-prefix* excludes by prefix", (q) =>
    assert.deepEqual(q.excluded, [{ term: "draft", prefix: true, weak: false, match: "exact" }])],
  ['plan -"old plan"', '-"phrase" is excluded', (q) => assert.deepEqual(q.excludedPhrases, [["old", "plan"]])],
  ['plan NOT "old plan"', 'NOT "phrase" is excluded', (q) => assert.deepEqual(q.excludedPhrases, [["old", "plan"]])],
  ["buck*", "prefix* is a prefix search without fuzzy", (q) =>
    assert.deepEqual(q.terms, [{ term: "buck", prefix: true, weak: false, match: "loose" }])],
  ["budget AND report", "AND requires both sides", (q) => {
    assert.deepEqual(names(q.required), ["budget", "report"]);
    assert.deepEqual(q.terms, []);
  }],
  ["budget AND report notes", "words outside the AND stay optional", (q) => {
    assert.deepEqual(names(q.required), ["budget", "report"]);
    assert.deepEqual(names(q.terms), ["notes"]);
  }],
  ["budget AND NOT draft", "AND NOT excludes", (q) => {
    assert.deepEqual(names(q.required), ["budget"]);
    assert.deepEqual(names(q.excluded), ["draft"]);
  }],
  ["budget AND -draft", "AND -word excludes", (q) => {
    assert.deepEqual(names(q.required), ["budget"]);
    assert.deepEqual(names(q.excluded), ["draft"]);
  }],
  ["sync OR backup", "OR between plain words is a plain disjunction", (q) => {
    assert.deepEqual(names(q.terms), ["sync", "backup"]);
    assert.deepEqual(q.groups, []);
  }],
  ["sync OR backup AND mobile", "AND binds tighter than OR", (q) => {
    assert.equal(q.groups.length, 1);
    assert.deepEqual(
      q.groups[0]!.alternatives.map((alternative) => names(alternative.terms)),
      [["sync"], ["backup", "mobile"]],
    );
  }],
  ['"token bucket" OR leaky', "OR with a phrase is a group", (q) => {
    const alternatives = q.groups[0]!.alternatives;
    assert.deepEqual(alternatives[0]!.phrases, [["token", "bucket"]]);
    assert.deepEqual(names(alternatives[1]!.terms), ["leaky"]);
    assert.deepEqual(q.phrases, []);
  }],
  ["+e-mail", "a required multi-part word is a phrase", (q) => assert.deepEqual(q.phrases, [["e", "mail"]])],
  ["-e-mail x", "an excluded multi-part word is an excluded phrase", (q) =>
    assert.deepEqual(q.excludedPhrases, [["e", "mail"]])],
  ["e-mail", "a loose multi-part word gives optional parts", (q) => assert.deepEqual(names(q.terms), ["e", "mail"])],
  ["東京", "a CJK word is optional and loose (it also reaches the longer words it begins)", (q) =>
    assert.deepEqual(q.terms, [{ term: "東京", prefix: false, weak: false, match: "loose" }])],
  ["+東京", "a required CJK word is checked as a phrase", (q) => assert.deepEqual(q.phrases, [["東京"]])],
  ['"東京で"', "a CJK phrase keeps its run whole", (q) => assert.deepEqual(q.phrases, [["東京で"]])],
];

for (const [input, description, check] of operators) {
  test(`operator: ${description} (${input})`, () => check(parseQuery(input)));
}

const malformed: Array<[string, string, RegExp]> = [
  ['"token bucket', "unbalanced_quote", /close the quote: "token bucket"/],
  ['sync "version history', "unbalanced_quote", /close the quote: "version history"/],
  ["sync - mobile", "bare_modifier", /directly followed .* -draft/],
  ["sync -", "bare_modifier", /"-"/],
  ["sync +", "bare_modifier", /\+budget/],
  ["AND budget", "dangling_operator", /"AND" needs a word or phrase on both sides/],
  ["budget AND", "dangling_operator", /budget AND 2024/],
  ["budget AND OR report", "dangling_operator", /"AND"/],
  ["OR", "dangling_operator", /"OR" needs/],
  ["sync OR", "dangling_operator", /sync OR backup/],
  ["budget AND !!!", "dangling_operator", /both sides/],
  ["NOT", "dangling_not", /NOT mobile/],
  ["sync NOT", "dangling_not", /"NOT" must be followed/],
  ["sync NOT -mobile", "not_with_modifier", /NOT draft/],
  ["-draft", "only_exclusions", /add at least one word/],
  ['-draft NOT old -"a plan"', "only_exclusions", /without a query/],
  ["-draft AND -old", "only_exclusions", /only excludes/],
  ["", "no_searchable_words", /no searchable words/],
  ["   ", "no_searchable_words", /vault_grep/],
  ["!!! ??? 12345678901", "no_searchable_words", /no searchable words/],
  ['""', "empty_phrase", /inside the quotes/],
  ['sync "!!"', "empty_phrase", /"!!" has no searchable words/],
  ["*", "bare_star", /buck\*/],
  ["sync *", "bare_star", /prefix search/],
  ["a*", "short_prefix", /at least 2 letters/],
  ["sync OR -mobile", "exclusion_in_or", /a OR b -c/],
  ["+sync OR backup", "required_in_or", /'\+a b'/],
  ["bucket -bucket", "contradiction", /both searched for and excluded/],
  ["(sync OR backup) AND mobile", "parentheses", /Parentheses do not group/],
  ["x".repeat(MAX_QUERY_LENGTH + 1), "too_long", /at most 1000/],
];

for (const [input, reason, message] of malformed) {
  test(`malformed: ${reason} (${input.slice(0, 30)})`, () => {
    const error = rejection(input);
    assert.equal(error.details?.reason, reason);
    assert.match(error.message, message);
    assert.equal(error.retry, "correct_request");
  });
}

test("parentheses are plain punctuation when no operator is involved", () => {
  assert.deepEqual(names(parseQuery("sync (mobile)").terms), ["sync", "mobile"]);
});

test("property: any string either parses into something searchable or is refused with a ToolError", () => {
  const vocabulary = fc.constantFrom(
    "AND", "OR", "NOT", '"', "\u201c", "-", "+", "*", "(", ")", "a", "bucket", "東京", "the", "ß", "-x", "+y", "x*",
    '"a b"', "-\"c d\"", "e-mail", "12345678", "   ", "\n", "\t",
  );
  const composed = fc.array(vocabulary, { maxLength: 12 }).map((parts) => parts.join(" "));
  const glued = fc.array(vocabulary, { maxLength: 12 }).map((parts) => parts.join(""));
  const codeUnits = fc.string({ unit: fc.integer({ min: 0, max: 0xffff }).map((code) => String.fromCharCode(code)) });
  const anything = fc.oneof(fc.string(), fc.string({ unit: "binary" }), codeUnits, composed, glued);
  fc.assert(
    fc.property(anything, (input) => {
      try {
        const query = parseQuery(input);
        const positives = query.terms.length + query.required.length + query.phrases.length + query.groups.length;
        assert.ok(positives > 0, `nothing to search for in ${JSON.stringify(input)}`);
      } catch (error) {
        if (!(error instanceof ToolError) || error.code !== "invalid_query" || error.message.length === 0) throw error;
      }
    }),
    { numRuns: 3000 },
  );
});

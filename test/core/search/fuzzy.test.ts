import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import SearchableMap from "minisearch/SearchableMap";
import { FuzzyTerms, MAX_FUZZY_QUERY } from "../../../src/core/search/fuzzy";

/** What MiniSearch's radix tree answers: the reference for every term and distance. */
function reference(terms: readonly string[], query: string, maxDistance: number): Map<string, number> {
  const tree = new SearchableMap<number>();
  terms.forEach((term, number) => tree.set(term, number));
  return new Map([...tree.fuzzyGet(query, maxDistance)].map(([term, [, distance]]) => [term, distance]));
}

function found(terms: string[], query: string, maxDistance: number): Map<string, number> {
  const matches = new Map<string, number>();
  new FuzzyTerms(terms).matches(query, maxDistance, (number, term, distance) => {
    assert.equal(terms[number], term);
    matches.set(term, distance);
  });
  return matches;
}

test("the same terms at the same distances as MiniSearch's fuzzy lookup", () => {
  const letter = fc.constantFrom("a", "b", "c", "d", "e", "s", "t", "ü", "ß", "東", "1", "z");
  const word = fc.array(letter, { minLength: 1, maxLength: 12 }).map((letters) => letters.join(""));
  fc.assert(
    fc.property(fc.uniqueArray(word, { maxLength: 60 }), word, fc.integer({ min: 1, max: 4 }), (terms, query, maxDistance) => {
      assert.deepEqual(found(terms, query, maxDistance), reference(terms, query, maxDistance));
    }),
    { numRuns: 1500 },
  );
});

test("words of up to 32 letters are measured in one machine word, longer ones by the full table, with the same answers", () => {
  const long = "abcdefghijklmnopqrstuvwxyzabcdef";
  assert.equal(long.length, MAX_FUZZY_QUERY);
  const terms = [long, `${long.slice(0, 31)}x`, `x${long}`, long.slice(1), `${long.slice(0, 10)}${long.slice(12)}`, "short", `${long}gh`, `${long}g`, `${long.slice(0, 20)}zz${long.slice(22)}g`];
  assert.deepEqual(found(terms, long, 2), reference(terms, long, 2));
  for (let distance = 1; distance <= 4; distance++) assert.deepEqual(found(terms, `${long}g`, distance), reference(terms, `${long}g`, distance));
  assert.ok(found(terms, `${long}g`, 2).size >= 4);
  assert.throws(() => found(terms, "", 1), /at least one character/);
});

test("long words (over 32 letters) find what MiniSearch's fuzzy lookup finds", () => {
  const letter = fc.constantFrom("a", "b", "c", "s", "ü", "東", "1");
  const word = fc.array(letter, { minLength: 30, maxLength: 40 }).map((letters) => letters.join(""));
  fc.assert(
    fc.property(fc.uniqueArray(word, { maxLength: 30 }), word, fc.integer({ min: 1, max: 6 }), (terms, query, maxDistance) => {
      const near = terms.map((term, i) => (i % 3 === 0 ? query.slice(0, -1 - (i % 4)) + term.slice(0, i % 3) : term));
      const unique = [...new Set(near)];
      assert.deepEqual(found(unique, query, maxDistance), reference(unique, query, maxDistance));
    }),
    { numRuns: 300 },
  );
});

test("terms added to the table after a lookup are found by the next one", () => {
  const terms = ["bucket"];
  const fuzzy = new FuzzyTerms(terms);
  const seen: string[] = [];
  fuzzy.matches("buckets", 1, (_, term) => seen.push(term));
  terms.push("buckel", "pocket");
  fuzzy.matches("buckets", 3, (_, term) => seen.push(term));
  assert.deepEqual(seen, ["bucket", "bucket", "buckel", "pocket"]);
});

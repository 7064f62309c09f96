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

test("words of up to 32 letters are measured in one machine word, longer ones are refused", () => {
  const long = "abcdefghijklmnopqrstuvwxyzabcdef";
  assert.equal(long.length, MAX_FUZZY_QUERY);
  const terms = [long, `${long.slice(0, 31)}x`, `x${long}`, long.slice(1), `${long.slice(0, 10)}${long.slice(12)}`, "short"];
  assert.deepEqual(found(terms, long, 2), reference(terms, long, 2));
  assert.throws(() => found(terms, `${long}g`, 2), /1 to 32/);
  assert.throws(() => found(terms, "", 1), /1 to 32/);
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

import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { PhraseText } from "../../../src/core/search/phrase";
import { buildPhraseFilter, isPhraseFilter, mayHoldPairs, phrasePairHashes } from "../../../src/core/search/phrase-filter";
import { wordSequence } from "../../../src/core/search/tokenizer";

const WORDS = ["token", "bucket", "rate", "Größe", "東京", "で", "雨", "a1", "x", "https", "the"];
const SEPARATORS = [" ", "-", ", ", "\n", "**", "[[", "]] ", "://", "  "];

const text = fc
  .array(fc.tuple(fc.constantFrom(...WORDS), fc.constantFrom(...SEPARATORS)), { maxLength: 40 })
  .map((parts) => parts.map(([word, separator]) => word + separator).join(""));

test("a note that holds a phrase always passes its filter (no false negatives)", () => {
  fc.assert(
    fc.property(text, text, fc.nat(), fc.integer({ min: 1, max: 5 }), (body, title, start, length) => {
      const words = wordSequence(body);
      const filter = buildPhraseFilter([words, wordSequence(title)]);
      assert.ok(isPhraseFilter(filter));
      // Phrases cut from the body's own words, and random ones the phrase check accepts.
      const from = words.length === 0 ? 0 : start % words.length;
      const phrase = words.slice(from, from + length);
      if (phrase.length > 0) assert.ok(mayHoldPairs(filter, phrasePairHashes(phrase)), phrase.join(" "));
      const random = [WORDS[start % WORDS.length]!, WORDS[(start >> 3) % WORDS.length]!].map((word) => wordSequence(word)[0] ?? "x");
      if (new PhraseText(body).contains(random)) assert.ok(mayHoldPairs(filter, phrasePairHashes(random)), random.join(" "));
    }),
    { numRuns: 500 },
  );
});

test("pairs never side by side are mostly ruled out", () => {
  const words = Array.from({ length: 600 }, (_, i) => `w${i}`);
  const filter = buildPhraseFilter([words]);
  for (let i = 1; i < words.length; i++) assert.ok(mayHoldPairs(filter, phrasePairHashes([words[i - 1]!, words[i]!])));
  let passed = 0;
  let probes = 0;
  for (let i = 0; i < words.length; i += 3) {
    for (let j = 0; j < words.length; j += 7) {
      if (j === i + 1) continue;
      probes += 1;
      if (mayHoldPairs(filter, phrasePairHashes([words[i]!, words[j]!]))) passed += 1;
    }
  }
  assert.ok(passed / probes < 0.06, `${passed} of ${probes} absent pairs passed`);
  // Two sequences are not joined: the last word of one and the first of the next are no pair.
  const apart = buildPhraseFilter([["alpha", "beta"], ["gamma", "delta"]]);
  assert.ok(mayHoldPairs(apart, phrasePairHashes(["alpha", "beta"])));
  assert.ok(!mayHoldPairs(apart, phrasePairHashes(["beta", "gamma"])));
});

test("CJK pairs, one-word phrases and filters of a foreign size are never ruled out", () => {
  const filter = buildPhraseFilter([["token", "bucket"]]);
  assert.deepEqual([...phrasePairHashes(["東京", "tower"])], []);
  assert.ok(mayHoldPairs(filter, phrasePairHashes(["東京", "tower"])));
  assert.ok(mayHoldPairs(filter, phrasePairHashes(["anything"])));
  assert.ok(!mayHoldPairs(filter, phrasePairHashes(["bucket", "token"])));
  for (const size of [0, 3, 7, (1 << 16) + 1, 1 << 17]) {
    assert.ok(!isPhraseFilter(new Uint8Array(size)));
    assert.ok(mayHoldPairs(new Uint8Array(size), phrasePairHashes(["bucket", "token"])), String(size));
  }
  const large = buildPhraseFilter([Array.from({ length: 200_000 }, (_, i) => `w${i}`)]);
  assert.equal(large.length, 1 << 16, "bounded size");
});

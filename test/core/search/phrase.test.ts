import { test } from "node:test";
import assert from "node:assert/strict";
import { containsPhrase, phraseCandidateTerms, textContainsPhrase } from "../../../src/core/search/phrase";
import { wordSequence } from "../../../src/core/search/tokenizer";

test("a phrase matches consecutive normalised words only", () => {
  assert.ok(textContainsPhrase("The Token-Bucket refills", ["token", "bucket"]));
  assert.ok(textContainsPhrase("Die Größe der Straße", ["grosse", "der", "strasse"]));
  assert.ok(!textContainsPhrase("a token in the bucket", ["token", "bucket"]));
  assert.ok(!textContainsPhrase("bucket token", ["token", "bucket"]));
  assert.ok(!containsPhrase(wordSequence("anything"), []));
});

test("CJK phrase words may sit inside a longer run", () => {
  assert.ok(textContainsPhrase("今日は東京で雨が降っています", ["東京で雨"]));
  assert.ok(textContainsPhrase("in 東京タワー today", ["in", "東京"]));
  assert.ok(textContainsPhrase("今日は東京 tower", ["東京", "tower"]));
  assert.ok(!textContainsPhrase("今日は東京で雨", ["大阪"]));
});

test("candidate terms: words, Han bigrams, or segment prefixes when nothing else is certain", () => {
  assert.deepEqual(phraseCandidateTerms(["token", "bucket"]), [
    { term: "token", prefix: false },
    { term: "bucket", prefix: false },
  ]);
  assert.deepEqual(phraseCandidateTerms(["東京で雨"]), [{ term: "東京", prefix: false }]);
  assert.deepEqual(phraseCandidateTerms(["서울"]), [{ term: "서울", prefix: true }]);
});

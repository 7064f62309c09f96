import { test } from "node:test";
import assert from "node:assert/strict";
import { PhraseText, containsPhrase, phraseCandidateTerms, textContainsPhrase } from "../../../src/core/search/phrase";
import fc from "fast-check";
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

test("PhraseText agrees with the whole word sequence, on ASCII and other texts alike", () => {
  const texts = [
    "The Token-Bucket refills; a token bucket, then token\n\n---\n\nbucket.",
    "see https://example.com/token bucket and www.token.bucket here",
    "commit 3f2a9c0d1e2f3a4b5c6d7e8f9a0b1c2d fixed, then commit 12345678 fixed again",
    "restart token bucketing set point reset point",
    "Die Größe der Straße: token bucket über alles",
    "tokens bucket token buckets token",
  ];
  const phrases = [["token", "bucket"], ["commit", "fixed"], ["set", "point"], ["bucket", "token"], ["com", "token", "bucket"], ["token"], ["https", "example"], ["www", "token"]];
  for (const text of texts) {
    const view = new PhraseText(text);
    for (const phrase of phrases) {
      assert.equal(view.contains(phrase), containsPhrase(wordSequence(text), phrase), `${JSON.stringify(phrase)} in ${JSON.stringify(text)}`);
    }
  }
});

test("PhraseText widens its window past any number of dropped tokens", () => {
  const text = `https ${"12345678 www.12345678 ".repeat(20)}token://token`;
  assert.equal(containsPhrase(wordSequence(text), ["https", "token"]), true);
  assert.equal(new PhraseText(text).contains(["https", "token"]), true);
  assert.equal(new PhraseText("a://token token token a://").contains(["a"]), false, "a URL scheme cut off at the window's end is no word");
});

test("PhraseText finds a phrase deep in a long note without tokenizing all of it", () => {
  const text = `${"lorem ipsum ".repeat(5000)}the token bucket refills${" dolor".repeat(5000)}`;
  const view = new PhraseText(text);
  assert.ok(view.contains(["token", "bucket", "refills"]));
  assert.ok(!view.contains(["bucket", "token"]));
});

test("PhraseText matches the word sequence on random ASCII texts", () => {
  const token = fc.constantFrom("token", "bucket", "tok", "Token", "BUCKET", "a", "12345678", "https", "www", "3f2a9c0d1e2f3a4b5c");
  const separator = fc.constantFrom(" ", "-", "://", ".", "\n\n", ", ", "   ", "_", ":");
  const text = fc.array(fc.tuple(token, separator), { maxLength: 30 }).map((parts) => parts.map(([word, gap]) => word + gap).join(""));
  const phrase = fc.array(fc.constantFrom("token", "bucket", "tok", "a", "https", "www"), { minLength: 1, maxLength: 3 });
  fc.assert(
    fc.property(text, phrase, (body, words) => {
      assert.equal(new PhraseText(body).contains(words), containsPhrase(wordSequence(body), words));
    }),
    { numRuns: 500 },
  );
});

test("PhraseText matches the word sequence on texts beyond ASCII, folded spellings included", () => {
  // Tokens the index drops (long numbers, hashes, URL schemes) between the words, too.
  const token = fc.constantFrom("token", "Tökén", "bucket", "BÜCKET", "Größe", "grosse", "café", "cafe\u0301", "ﬁle", "file", "東京", "½", "İstanbul", "istanbul", "a", "—", "“quoted”", "12345678", "https", "www", "mailto", "3f2a9c0d1e2f3a4b5c");
  const separator = fc.constantFrom(" ", "-", ".", "\n\n", ", ", "—", "…", "\u00a0", "", "://", ":");
  const text = fc.array(fc.tuple(token, separator), { maxLength: 40 }).map((parts) => parts.map(([word, gap]) => word + gap).join(""));
  const phrase = fc.array(fc.constantFrom("token", "bucket", "grosse", "cafe", "file", "istanbul", "a", "quoted", "https", "www"), { minLength: 1, maxLength: 3 });
  fc.assert(
    fc.property(text, phrase, (body, words) => {
      assert.equal(new PhraseText(body).contains(words), containsPhrase(wordSequence(body), words), JSON.stringify(body));
    }),
    { numRuns: 3000 },
  );
});

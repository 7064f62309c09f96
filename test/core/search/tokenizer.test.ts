import { test } from "node:test";
import assert from "node:assert/strict";
import fc from "fast-check";
import { readFileSync } from "node:fs";
import path from "node:path";
import { TermTable, termHash } from "../../../src/core/search/term-table";
import { forEachWordPiece, normalizeTerm, scanTerms, STOP_WORDS, TermScan, tokenize, tokenizeWithWords, wordSequence } from "../../../src/core/search/tokenizer";
import { EDGE_VAULT, HELP_VAULT, vaultFiles } from "../../support/vaults";

test("diacritics fold so a query typed without them finds the word", () => {
  assert.deepEqual(tokenize("Über die Größe der Straße"), ["uber", "die", "grosse", "der", "strasse"]);
  assert.deepEqual(tokenize("Überlegungen"), tokenize("uberlegungen"));
  assert.equal(normalizeTerm("über"), normalizeTerm("uber"));
  assert.equal(normalizeTerm("Größe"), "grosse");
  assert.equal(normalizeTerm("GROSSE"), "grosse");
  assert.equal(normalizeTerm("Straße"), normalizeTerm("strasse"));
});

test("letters that NFKD leaves whole are spelled out", () => {
  assert.deepEqual(tokenize("Æsir Ærø Œuvre Łódź Đakovo"), ["aesir", "aero", "oeuvre", "lodz", "dakovo"]);
  assert.deepEqual(tokenize("ẞ ø"), ["ss", "o"]);
});

test("a decomposed (NFD) spelling gives the same term as the composed one", () => {
  assert.deepEqual(tokenize("cafe\u0301 nai\u0308ve"), tokenize("café naïve"));
  assert.deepEqual(tokenize("café naïve"), ["cafe", "naive"]);
});

test("compatibility forms unfold: ligatures, full-width letters", () => {
  assert.deepEqual(tokenize("ﬁle ＡＢＣ"), ["file", "abc"]);
});

test("text splits on anything that is not a letter or digit, apostrophes included", () => {
  assert.deepEqual(tokenize("don't e-mail snake_case #tag/sub [[Link|alias]]"), [
    "don", "t", "e", "mail", "snake", "case", "tag", "sub", "link", "alias",
  ]);
});

test("junk is dropped: long tokens, long numbers, hashes, URL schemes", () => {
  const long = "a".repeat(41);
  assert.deepEqual(tokenize(`${long} ${"b".repeat(40)}`), ["b".repeat(40)]);
  assert.deepEqual(tokenize("1234567 123456 2024"), ["123456", "2024"]);
  assert.deepEqual(tokenize("commit 3f786850e387550fdab836ed7e6dc881de23001b deadbeefdeadbeef"), [
    "commit",
    "deadbeefdeadbeef",
  ]);
  assert.deepEqual(tokenize("see https://www.example.com/docs and mailto:me@example.org"), [
    "see", "example", "com", "docs", "and", "me", "example", "org",
  ]);
  assert.deepEqual(tokenize("the HTTP server"), ["the", "http", "server"]);
});

test("Japanese: a word is found inside a sentence without spaces", () => {
  const terms = tokenize("今日は東京で雨が降っています");
  assert.ok(terms.includes("東京"));
  assert.ok(terms.includes("今日"));
  for (const term of tokenize("東京")) assert.ok(terms.includes(term), term);
});

test("Han bigrams reach inside longer segments", () => {
  const terms = tokenize("東京タワーへ行く");
  assert.ok(terms.includes("東京タワー"), "the segmenter keeps the compound");
  assert.ok(terms.includes("東京"), "the bigram reaches inside it");
});

test("Han bigrams are not counted twice when a segment is the same two characters", () => {
  const terms = tokenize("東京");
  assert.deepEqual(terms, ["東京"]);
});

test("Chinese is segmented and every bigram indexed", () => {
  const terms = tokenize("我们今天去北京天安门广场");
  for (const word of ["我们", "今天", "北京", "广场", "天安", "安门"]) assert.ok(terms.includes(word), word);
});

test("Korean keeps space-separated words; Hangul is not decomposed into jamo", () => {
  assert.deepEqual(tokenize("서울에서 만나요"), ["서울에서", "만나요"]);
});

test("half-width katakana and mixed scripts", () => {
  assert.deepEqual(tokenize("ｶﾀｶﾅ"), tokenize("カタカナ"));
  assert.deepEqual(tokenize("iPhone用"), ["iphone", "用"]);
});

test("voiced kana keep their marks (が is not か)", () => {
  assert.notDeepEqual(tokenize("が"), tokenize("か"));
});

test("wordSequence keeps CJK runs whole and words in order", () => {
  assert.deepEqual(wordSequence("The Token-Bucket refills, 東京で雨"), ["the", "token", "bucket", "refills", "東京で雨"]);
});

test("normalizeTerm refuses what is not one indexable word", () => {
  assert.equal(normalizeTerm(""), null);
  assert.equal(normalizeTerm("e-mail"), null);
  assert.equal(normalizeTerm("12345678"), null);
  assert.equal(normalizeTerm("東京"), "東京");
  assert.equal(normalizeTerm("iPhone用"), null);
});

test("stop words are in their folded form and about 150 of them", () => {
  assert.ok(STOP_WORDS.has("the") && STOP_WORDS.has("und") && STOP_WORDS.has("fur"));
  for (const word of STOP_WORDS) assert.deepEqual(tokenize(word), [word]);
  assert.ok(STOP_WORDS.has("para") && STOP_WORDS.has("les") && !STOP_WORDS.has("dia") && !STOP_WORDS.has("general"));
  assert.ok(STOP_WORDS.size >= 400 && STOP_WORDS.size <= 700, String(STOP_WORDS.size));
});

test("stop words stay in the index so phrases with them still match", () => {
  assert.deepEqual(tokenize("the state of the art"), ["the", "state", "of", "the", "art"]);
});

test("property: the word scanner finds exactly the runs of letters, digits and marks", () => {
  const unit = fc.constantFrom("a", "Z", "7", " ", ".", "-", "é", "e\u0301", "ß", "—", "“", "😀", "\n", "_", "Ω", "ж", "١", "\ud800");
  fc.assert(
    fc.property(fc.array(unit, { maxLength: 30 }).map((units) => units.join("")), (text) => {
      const found: Array<[string, number]> = [];
      forEachWordPiece(text, (piece, start) => found.push([piece, start]));
      const expected = [...text.matchAll(/[\p{L}\p{N}\p{M}]+/gu)].map((match): [string, number] => [match[0], match.index]);
      assert.deepEqual(found, expected);
    }),
    { numRuns: 2000 },
  );
});

test("tokenizeWithWords gives exactly tokenize and wordSequence of the same text", () => {
  const piece = fc.constantFrom("Token", "bucket", "Größe", "東京で雨", "ｶﾀｶﾅ", "½", "https", "://", "www", ".", " ", "-", "12345678", "deadbeefdeadbeef1", "\n", "한국어");
  fc.assert(
    fc.property(fc.array(piece, { maxLength: 30 }), (pieces) => {
      const text = pieces.join("");
      assert.deepEqual(tokenizeWithWords(text), { terms: tokenize(text), words: wordSequence(text) });
    }),
    { numRuns: 300 },
  );
});

/** What scanTerms produced, as strings: the terms through the table, the word hashes as they are. */
function scanned(text: string, table: TermTable, scan: TermScan): { terms: string[]; words: number[] } {
  scanTerms(text, table, scan);
  return {
    terms: Array.from(scan.terms.subarray(0, scan.termCount), (number) => table.terms[number]!),
    words: Array.from(scan.words.subarray(0, scan.wordCount)),
  };
}

test("scanTerms gives exactly tokenize's terms, numbered, and the hashes of wordSequence's words", () => {
  const piece = fc.constantFrom(
    "Token", "bucket", "BUCKET", "Größe", "東京で雨", "ｶﾀｶﾅ", "½", "https", "://", "www", "WWW", "mailto", "MailTo", ":", ".", " ", "-",
    "12345678", "123456", "deadbeefdeadbeef1", "DEADBEEFDEADBEEF1", "abcdefabcdefabcd", "\n", "한국어", "é", "e\u0301", "a".repeat(40), "b".repeat(41), "x9",
  );
  const table = new TermTable();
  const scan = new TermScan();
  fc.assert(
    fc.property(fc.array(piece, { maxLength: 30 }), (pieces) => {
      const text = pieces.join("");
      const { terms, words } = tokenizeWithWords(text);
      assert.deepEqual(scanned(text, table, scan), { terms, words: words.map(termHash) });
    }),
    { numRuns: 2000 },
  );
  // Numbers are stable: a term keeps its number, a new term gets the next one.
  const size = table.size;
  assert.equal(table.number("bucket"), table.find("bucket"));
  assert.equal(table.number("a-term-never-seen"), size);
  assert.equal(table.find("another-term-never-seen"), -1);
});

test("scanTerms agrees with tokenize on every note of both fixture vaults", () => {
  const table = new TermTable();
  const scan = new TermScan();
  let compared = 0;
  for (const vault of [HELP_VAULT, EDGE_VAULT]) {
    for (const file of vaultFiles(vault).filter((name) => name.endsWith(".md"))) {
      const text = readFileSync(path.join(vault, file), "utf8");
      const { terms, words } = tokenizeWithWords(text);
      assert.deepEqual(scanned(text, table, scan), { terms, words: words.map(termHash) }, file);
      compared += 1;
    }
  }
  assert.ok(compared > 150, `${compared} notes`);
  // The table grew through thousands of terms and rehashes, and still finds each by its own string.
  assert.ok(table.size > 5000, String(table.size));
  table.terms.forEach((term, number) => assert.equal(table.find(term), number));
});

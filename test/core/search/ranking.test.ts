// The ranking module's formulas, on small cases worked out by hand.
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  coverage,
  expansionWeight,
  FIELDS,
  inverseDocumentFrequency,
  lengthNorm,
  noteScore,
  queryWordWeight,
  RANKING,
  saturatedScore,
  titleMatch,
  wordCoverage,
  type RankingParameters,
} from "../../../src/core/search/ranking";

const close = (actual: number, expected: number, message = ""): void => assert.ok(Math.abs(actual - expected) < 1e-12, `${message} ${actual} vs ${expected}`);
const with_ = (change: Partial<RankingParameters>): RankingParameters => ({ ...RANKING, ...change });

test("idf: a word in 2 of 10 notes is ln(1 + 8.5 / 2.5); a word in every note still counts a little", () => {
  close(inverseDocumentFrequency(10, 2), Math.log(4.4));
  close(inverseDocumentFrequency(10, 10), Math.log(1 + 0.5 / 10.5));
  assert.ok(inverseDocumentFrequency(10, 10) > 0);
  assert.ok(inverseDocumentFrequency(10, 1) > inverseDocumentFrequency(10, 2));
});

test("length normalisation: twice the average length with b 0.75 divides by 1.75; b 0 not at all", () => {
  close(lengthNorm(0.75, 20, 10), 1.75);
  close(lengthNorm(0.75, 5, 10), 0.625);
  close(lengthNorm(0, 20, 10), 1);
  close(lengthNorm(0.75, 3, 0), 1);
});

test("saturation: idf × (k1 + 1) × tf / (k1 + tf), approaching idf × (k1 + 1)", () => {
  const ranking = with_({ k1: 1.2 });
  close(saturatedScore(ranking, 2, 1), (2 * 2.2 * 1) / 2.2);
  close(saturatedScore(ranking, 2, 3), (2 * 2.2 * 3) / 4.2);
  assert.ok(saturatedScore(ranking, 2, 1000) < 2 * 2.2);
  assert.ok(saturatedScore(ranking, 2, 10) - saturatedScore(ranking, 2, 9) < saturatedScore(ranking, 2, 2) - saturatedScore(ranking, 2, 1));
});

test("expansion weights: the word and its stem count fully; a prefix or near spelling of a missing word far less", () => {
  const ranking = with_({ stemWeight: 1, prefixWeight: 0.3, fuzzyWeight: 0.3, explicitPrefixWeight: 1 });
  assert.equal(expansionWeight(ranking, "exact", 7, 0, false), 1);
  assert.equal(expansionWeight(ranking, "stem", 9, 0, false), 1);
  close(expansionWeight(ranking, "prefix", 8, 2, false), (0.3 * 8) / (8 + 0.6));
  close(expansionWeight(ranking, "fuzzy", 6, 1, false), (0.3 * 6) / 7);
  assert.equal(expansionWeight(ranking, "prefix", 8, 2, true), 1, "word* asked for every continuation");
});

test("stop words weigh stopWordWeight; coverage, title factor and the note's score compose as documented", () => {
  const ranking = with_({ stopWordWeight: 0.1, coverageExponent: 1, titleBonus: 0.5, fuzzyCoverage: 0.5 });
  assert.equal(queryWordWeight(ranking, true), 0.1);
  assert.equal(queryWordWeight(ranking, false), 1);
  close(wordCoverage(ranking, false, 2, true), 2);
  close(wordCoverage(ranking, false, 2, false), 1);
  close(wordCoverage(ranking, true, 2, true), 0.2);
  close(coverage(ranking, 3, 4), 0.75);
  assert.equal(coverage(with_({ coverageExponent: 0 }), 1, 4), 1, "exponent 0: plain BM25F");
  close(coverage(with_({ coverageExponent: 2 }), 1, 2), 0.25);
  close(titleMatch(ranking, 1, 2), 1.25);
  close(titleMatch(ranking, 5, 2), 1.5, "capped at the whole title");
  assert.equal(titleMatch(ranking, 0, 0), 1);
  // 4 × 0.75 × 1.25 = 3.75
  assert.equal(noteScore(ranking, 4, 3, 4, 1, 2), 3.75);
  assert.equal(noteScore(ranking, 1 / 3, 1, 1, 0, 3), 0.333, "rounded to three decimals");
});

test("the default ranking names a weight and a length normalisation for every field, title above body", () => {
  for (const field of FIELDS) {
    assert.ok(RANKING.fieldWeights[field] > 0, field);
    assert.ok(RANKING.lengthNormalisation[field] >= 0 && RANKING.lengthNormalisation[field] <= 1, field);
  }
  assert.ok(RANKING.fieldWeights.title > RANKING.fieldWeights.body);
  assert.ok(Object.isFrozen(RANKING) && Object.isFrozen(RANKING.fieldWeights));
});

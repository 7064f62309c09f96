// How note_search orders its hits: every weight and formula, in one place. A note's score is BM25F
// (Robertson and Zaragoza, "The Probabilistic Relevance Framework", §3.5) over its fields, one
// saturated term per query word, times how much of the question it covers:
//
//   score(note)  = coverage(note) × Σ_word  queryWeight(word) × idf(word) × (k1 + 1) × tf / (k1 + tf)
//   tf           = Σ_expansion Σ_field  expansionWeight × fieldWeight × frequency / lengthNorm(field)
//   lengthNorm   = 1 − b + b × fieldLength / averageFieldLength
//   idf(word)    = ln(1 + (N − df + 0.5) / (df + 0.5)),  df = notes any expansion of the word reaches
//   coverage     = ((Σ idf of the words matched) / (Σ idf of all words)) ^ coverageExponent
//
// A word reaches the index through expansions: itself, the words of the vault with the same stem in
// the vault's languages (./languages.ts), and, only for a word the vault does not contain, longer
// words it begins and near spellings, weighted down. The evaluator (./evaluator.ts) runs these
// formulas over the postings; `explain` gives their parts per hit.

export type FieldName = "title" | "aliases" | "headings" | "tags" | "body";

/** How a query word reached an index term. */
export type ExpansionKind = "exact" | "stem" | "prefix" | "fuzzy";

export interface RankingParameters {
  /** How much a word counts in each field against the body. */
  readonly fieldWeights: Readonly<Record<FieldName, number>>;
  /** Length normalisation per field: 0 none, 1 full. */
  readonly lengthNormalisation: Readonly<Record<FieldName, number>>;
  /** Term-frequency saturation: a word's tenth occurrence says little more than its third. */
  readonly k1: number;
  /** Weight of an index term reached by stem, against 1 for the word itself. */
  readonly stemWeight: number;
  /** Weight of a longer word a query word begins, only when the vault lacks the word itself. */
  readonly prefixWeight: number;
  /** Weight of a near spelling, only when the vault lacks the word itself; scaled by closeness. */
  readonly fuzzyWeight: number;
  /** Weight of an explicit `word*` expansion (the agent asked for every continuation). */
  readonly explicitPrefixWeight: number;
  /** CJK words also reach the longer words they begin (東京 → 東京タワー), not only when missing. */
  readonly cjkPrefixAlways: boolean;
  /** Fewest letters of a word that reaches the longer words it begins (CJK: minCjkPrefixLength). */
  readonly minPrefixLength: number;
  readonly minCjkPrefixLength: number;
  /** Fewest letters of a word that reaches near spellings, and how many edits per letter (at most maxFuzzyDistance). */
  readonly minFuzzyLength: number;
  readonly fuzziness: number;
  readonly maxFuzzyDistance: number;
  /** Weight of a stop word ("how", "the", "de") against 1 for other words. */
  readonly stopWordWeight: number;
  /** How strongly notes covering more of the question are preferred; 0 leaves plain BM25F. */
  readonly coverageExponent: number;
  /** How much a note gains when the question holds its whole title ("properties" → Properties): × (1 + titleBonus × share of title words). */
  readonly titleBonus: number;
  /** A word matched only through a near spelling counts this much toward coverage. */
  readonly fuzzyCoverage: number;
}

export const RANKING: RankingParameters = Object.freeze({
  fieldWeights: Object.freeze({ title: 3, aliases: 3, headings: 2, tags: 2, body: 1 }),
  lengthNormalisation: Object.freeze({ title: 0.75, aliases: 0.75, headings: 0.75, tags: 0.75, body: 0.75 }),
  k1: 1.6,
  stemWeight: 1,
  prefixWeight: 0.3,
  fuzzyWeight: 0.3,
  explicitPrefixWeight: 1,
  cjkPrefixAlways: true,
  minPrefixLength: 3,
  minCjkPrefixLength: 2,
  minFuzzyLength: 5,
  fuzziness: 0.2,
  maxFuzzyDistance: 6,
  stopWordWeight: 0.1,
  coverageExponent: 0,
  titleBonus: 0.25,
  fuzzyCoverage: 0.5,
});

/** Fields in index order: a posting list's field number is its place here. */
export const FIELDS: readonly FieldName[] = ["title", "aliases", "headings", "tags", "body"];
export const FIELD_COUNT = FIELDS.length;

/** Rarity of a word reached in `df` of `documents` notes. Never negative. */
export function inverseDocumentFrequency(documents: number, df: number): number {
  return Math.log(1 + (documents - df + 0.5) / (df + 0.5));
}

/** Divides a field's term frequency: longer fields than average count each occurrence for less. */
export function lengthNorm(b: number, length: number, averageLength: number): number {
  return averageLength > 0 ? 1 - b + (b * length) / averageLength : 1;
}

/** One word's BM25F contribution from its pseudo-frequency `tf` (already field-weighted and normalised). */
export function saturatedScore(ranking: RankingParameters, idf: number, tf: number): number {
  return (idf * (ranking.k1 + 1) * tf) / (ranking.k1 + tf);
}

/** Weight of an expansion; `distance` is the letters added (prefix) or edits (fuzzy). */
export function expansionWeight(ranking: RankingParameters, kind: ExpansionKind, termLength: number, distance: number, explicit: boolean): number {
  switch (kind) {
    case "exact":
      return 1;
    case "stem":
      return ranking.stemWeight;
    case "prefix":
      return explicit ? ranking.explicitPrefixWeight : (ranking.prefixWeight * termLength) / (termLength + 0.3 * distance);
    case "fuzzy":
      return (ranking.fuzzyWeight * termLength) / (termLength + distance);
  }
}

/** A query word's weight: stop words and lone kana count little. */
export function queryWordWeight(ranking: RankingParameters, weak: boolean): number {
  return weak ? ranking.stopWordWeight : 1;
}

/**
 * The share of the question a note covers, as a factor: `matched` and `total` are sums of
 * queryWeight × idf over the words it matched and over all words (a near spelling counting
 * fuzzyCoverage of its word).
 */
export function coverage(ranking: RankingParameters, matched: number, total: number): number {
  if (total <= 0 || ranking.coverageExponent === 0) return 1;
  return Math.pow(Math.min(1, matched / total), ranking.coverageExponent);
}

/** The title factor: `titleWords` of the note's `titleLength` distinct title words are in the question. */
export function titleMatch(ranking: RankingParameters, titleWords: number, titleLength: number): number {
  return titleLength > 0 ? 1 + ranking.titleBonus * Math.min(1, titleWords / titleLength) : 1;
}

/** What one query word adds to the weight of the question a note covers: its weight × idf, a near spelling counting less. */
export function wordCoverage(ranking: RankingParameters, weak: boolean, idf: number, matchedByItself: boolean): number {
  return queryWordWeight(ranking, weak) * idf * (matchedByItself ? 1 : ranking.fuzzyCoverage);
}

/**
 * A note's score: its BM25F sum times coverage() and titleMatch(). `covered` and `whole` are sums of
 * wordCoverage() over the words it matched and over all words (matched by themselves).
 */
export function noteScore(ranking: RankingParameters, bm25f: number, covered: number, whole: number, titleWords: number, titleLength: number): number {
  return roundScore(bm25f * coverage(ranking, covered, whole) * titleMatch(ranking, titleWords, titleLength));
}

/** Scores are shown to three decimals; ties then break by path. */
export function roundScore(score: number): number {
  return Math.round(score * 1000) / 1000;
}

/** Why a hit scored what it did: `note_search` with `explain: true`. */
export interface ScoreExplanation {
  score: number;
  /** coverage() of the note. */
  coverage: number;
  /** titleMatch() of the note. */
  title: number;
  words: WordExplanation[];
}

export interface WordExplanation {
  word: string;
  weight: number;
  idf: number;
  /** Notes any expansion of the word reaches. */
  df: number;
  /** Pseudo-frequency before saturation. */
  tf: number;
  /** queryWeight × saturatedScore: the word's share of the score before coverage. */
  contribution: number;
  matches: MatchExplanation[];
}

export interface MatchExplanation {
  term: string;
  via: ExpansionKind;
  weight: number;
  /** Occurrences per field where the term occurs. */
  fields: Partial<Record<FieldName, number>>;
}

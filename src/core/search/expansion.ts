// Which index terms a query word reaches, and with what weight (ranking.ts): itself; the vault's words
// of the same stem; for a word the vault does not contain at all (a typo, a word cut short), longer
// words it begins and near spellings; for `word*`, every word it begins. Expanding every word by
// prefix and spelling ranked "heading" beside "reading" and drowned a question's real words in
// their neighbours.
import type { TermData } from "./minisearch-access";
import type { QueryTerm } from "./query";
import { expansionWeight, type ExpansionKind, type RankingParameters } from "./ranking";
import type { Stems } from "./languages";
import { containsCjk } from "./tokenizer";

/** The index's terms as the planner reads them (TermDictionary). */
export interface TermLookup {
  get(term: string): TermData | undefined;
  atPrefix(prefix: string): Iterable<[string, TermData]>;
  fuzzyGet(term: string, maxDistance: number): Map<string, [TermData, number]>;
}

export interface Expansion {
  term: string;
  data: TermData;
  kind: ExpansionKind;
  weight: number;
}

/** A query word with the index terms it reaches. */
export interface PlannedWord {
  query: QueryTerm;
  expansions: Expansion[];
}

/** Fewest first letters a stem class is looked up by. */
const MIN_STEM_PREFIX_LENGTH = 3;
/** Words sharing a query word's first letters examined for its stem: bounds a query on a huge vocabulary. */
const MAX_STEM_CANDIDATES = 4000;
const DIGITS_ONLY = /^\p{N}+$/u;
const HAS_DIGIT = /\p{N}/u;

export function planWord(query: QueryTerm, lookup: TermLookup, stems: readonly Stems[], ranking: RankingParameters): PlannedWord {
  const expansions: Expansion[] = [];
  const seen = new Set<string>();
  const add = (term: string, data: TermData | undefined, kind: ExpansionKind, weight: number): void => {
    if (!data || data.size === 0 || seen.has(term)) return;
    seen.add(term);
    expansions.push({ term, data, kind, weight });
  };
  const word = query.term;
  add(word, lookup.get(word), "exact", 1);
  if (query.prefix) {
    for (const [term, data] of lookup.atPrefix(word)) add(term, data, "prefix", expansionWeight(ranking, "prefix", term.length, term.length - word.length, true));
    return { query, expansions };
  }
  if (query.match === "exact" || DIGITS_ONLY.test(word)) return { query, expansions };
  const cjk = containsCjk(word);
  if (!cjk) {
    for (const language of stems) {
      const from = language.candidatePrefix(word, MIN_STEM_PREFIX_LENGTH);
      if (from === null) continue;
      const stem = language.of(word);
      let examined = 0;
      for (const [term, data] of lookup.atPrefix(from)) {
        if (++examined > MAX_STEM_CANDIDATES) break;
        if (!seen.has(term) && language.of(term) === stem) add(term, data, "stem", expansionWeight(ranking, "stem", term.length, 0, false));
      }
    }
  }
  const missing = expansions.length === 0;
  if (query.match !== "loose" || !(missing || (cjk && ranking.cjkPrefixAlways))) return { query, expansions };
  const letters = Array.from(word).length;
  if (letters >= (cjk ? ranking.minCjkPrefixLength : ranking.minPrefixLength)) {
    for (const [term, data] of lookup.atPrefix(word)) add(term, data, "prefix", expansionWeight(ranking, "prefix", term.length, term.length - word.length, false));
  }
  if (missing && !cjk && !HAS_DIGIT.test(word) && letters >= ranking.minFuzzyLength) {
    const distance = Math.min(ranking.maxFuzzyDistance, Math.round(word.length * ranking.fuzziness));
    if (distance > 0) {
      for (const [term, [data, edits]] of lookup.fuzzyGet(word, distance)) {
        if (edits > 0) add(term, data, "fuzzy", expansionWeight(ranking, "fuzzy", term.length, edits, false));
      }
    }
  }
  return { query, expansions };
}

// How hits are scored: BM25 from MiniSearch over every query term, then scaled by how much of the
// query a note matched, counting stop words and near-miss spellings for little.
import type { Query, SearchResult } from "minisearch";
import type { CandidateTerm } from "./phrase";
import { STOP_WORD_WEIGHT, type ParsedQuery, type QueryTerm } from "./query";
import { isStopWord } from "./tokenizer";

/** How much a query word matched only by a near-miss spelling counts, against 1 for a real match. */
export const FUZZY_MATCH_CREDIT = 0.5;

/** Every term that can make a note a hit, merged by term so each is looked up once. */
export function positiveTerms(
  query: ParsedQuery,
  phrases: ReadonlyArray<{ candidates: readonly CandidateTerm[] }>,
): Map<string, QueryTerm> {
  const merged = new Map<string, QueryTerm>();
  const add = (term: QueryTerm): void => {
    const known = merged.get(term.term);
    merged.set(
      term.term,
      known
        ? {
            term: term.term,
            prefix: known.prefix || term.prefix,
            fuzzy: Math.max(known.fuzzy, term.fuzzy),
            weight: Math.max(known.weight, term.weight),
          }
        : term,
    );
  };
  query.terms.forEach(add);
  query.required.forEach(add);
  for (const group of query.groups) for (const alternative of group.alternatives) alternative.terms.forEach(add);
  for (const phrase of phrases) {
    for (const { term, prefix } of phrase.candidates) {
      add({ term, prefix, fuzzy: 0, weight: isStopWord(term) ? STOP_WORD_WEIGHT : 1 });
    }
  }
  return merged;
}

export function queryTree(terms: readonly QueryTerm[]): Query {
  return {
    combineWith: "OR",
    queries: terms.map((term) => ({
      queries: [term.term],
      prefix: term.prefix,
      fuzzy: term.fuzzy > 0 ? term.fuzzy : false,
      boostTerm: () => term.weight,
    })),
  };
}

/**
 * BM25 summed over the query terms, times the weight of the query terms matched: MiniSearch multiplies
 * by their plain count instead, which would let a note win by matching "a", "of" and "the".
 */
export function score(result: SearchResult, terms: ReadonlyMap<string, QueryTerm>): number {
  const matchedCount = Math.max(1, result.queryTerms.length);
  const bm25 = result.score / matchedCount;
  const documentTerms = Object.keys(result.match);
  let coordination = 0;
  for (const source of result.queryTerms) {
    const term = terms.get(source);
    const prefix = term?.prefix ?? false;
    const real = documentTerms.some((matched) => matched === source || (prefix && matched.startsWith(source)));
    coordination += (term?.weight ?? 1) * (real ? 1 : FUZZY_MATCH_CREDIT);
  }
  return Math.round(bm25 * coordination * 1000) / 1000;
}

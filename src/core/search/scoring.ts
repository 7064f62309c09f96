// How hits are scored: BM25 as MiniSearch computes it over every query term (./evaluator.ts), then
// scaled by how much of the query a note matched, counting stop words and near-miss spellings for
// little (matchScore in ./note-index.ts).
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

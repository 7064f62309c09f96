// The words a query scores with: every term that can make a note a hit, merged by term so each is
// looked up once (a word both optional and in a phrase counts once, reaching as far as either asks).
import type { CandidateTerm } from "./phrase";
import { mergeTerm, type ParsedQuery, type QueryTerm } from "./query";
import { isStopWord } from "./tokenizer";

export function positiveTerms(
  query: ParsedQuery,
  phrases: ReadonlyArray<{ candidates: readonly CandidateTerm[] }>,
): Map<string, QueryTerm> {
  const merged = new Map<string, QueryTerm>();
  const add = (term: QueryTerm): void => {
    const known = merged.get(term.term);
    merged.set(term.term, known ? mergeTerm(known, term) : term);
  };
  query.terms.forEach(add);
  query.required.forEach(add);
  for (const group of query.groups) for (const alternative of group.alternatives) alternative.terms.forEach(add);
  for (const phrase of phrases) {
    for (const { term, prefix } of phrase.candidates) {
      add({ term, prefix, fuzzy: 0, weak: isStopWord(term), match: "exact" });
    }
  }
  return merged;
}

// What a parsed query asks of a note, worked out once per search: the words it scores with (each
// looked up once), and what a match must hold to be a hit, as positions among those words; the
// same for what it excludes. Checked per match with plain loops (thousands of matches a query).
import { matchedTerm, type Evaluation } from "./evaluator";
import { phraseCandidateTerms, type CandidateTerm } from "./phrase";
import { mayHoldPairs, phrasePairHashes } from "./phrase-filter";
import { mergeTerm, type ParsedQuery, type QueryTerm } from "./query";
import { isStopWord } from "./tokenizer";

export interface PhraseCheck {
  words: string[];
  candidates: CandidateTerm[];
  pairs: Uint32Array;
}

/** A phrase with the positions of its candidate terms among the query's words. */
export interface PhrasePositions {
  phrase: PhraseCheck;
  terms: number[];
}

/** What a match must have to be a hit, as positions among the query's words. */
export interface HitChecks {
  /** At least one of these, when any. */
  strong: number[];
  required: number[];
  phrases: PhrasePositions[];
  /** Each group: at least one alternative with all its words and phrases. */
  groups: Array<Array<{ terms: number[]; phrases: PhrasePositions[] }>>;
}

export interface QueryPlan {
  /** The words scored, each once. */
  terms: QueryTerm[];
  checks: HitChecks;
  /** Phrases every hit must hold. */
  phrases: PhraseCheck[];
  /** Some hit must hold a phrase (a required one or one of a group's), so candidates' texts are read. */
  hasPositivePhrases: boolean;
}

/** What excluded words and phrases look up: a match of an excluded word is out; of all of a phrase's terms, a suspect. */
export interface ExclusionPlan {
  terms: QueryTerm[];
  excludedTerms: number[];
  phrases: PhrasePositions[];
}

export function toPhraseCheck(words: string[]): PhraseCheck {
  return { words, candidates: phraseCandidateTerms(words), pairs: phrasePairHashes(words) };
}

/** Every term that can make a note a hit, merged by term (a word both loose and in a phrase reaches as far as either asks). */
export function positiveTerms(query: ParsedQuery, phrases: ReadonlyArray<{ candidates: readonly CandidateTerm[] }>): Map<string, QueryTerm> {
  const merged = new Map<string, QueryTerm>();
  const add = (term: QueryTerm): void => {
    const known = merged.get(term.term);
    merged.set(term.term, known ? mergeTerm(known, term) : term);
  };
  query.terms.forEach(add);
  query.required.forEach(add);
  for (const group of query.groups) for (const alternative of group.alternatives) alternative.terms.forEach(add);
  for (const phrase of phrases) {
    for (const { term, prefix } of phrase.candidates) add({ term, prefix, weak: isStopWord(term), match: "exact" });
  }
  return merged;
}

/** Null when nothing in the query can make a hit. */
export function planQuery(query: ParsedQuery): QueryPlan | null {
  const phrases = query.phrases.map(toPhraseCheck);
  const groupPhrases = query.groups.map((group) => group.alternatives.map((alternative) => alternative.phrases.map(toPhraseCheck)));
  const positive = positiveTerms(query, [...phrases, ...groupPhrases.flat(2)]);
  if (positive.size === 0) return null;
  const terms = [...positive.values()];
  const positions = new Map(terms.map((term, position) => [term.term, position]));
  const at = (term: string): number => positions.get(term)!;
  const phraseAt = (phrase: PhraseCheck): PhrasePositions => ({ phrase, terms: phrase.candidates.map(({ term }) => at(term)) });
  // A note matching only "how", "a" and "the" of a longer question is noise, not a hit; explicit
  // requirements (+the, phrases, groups) say on their own what a hit is.
  const unconstrained = query.required.length === 0 && query.phrases.length === 0 && query.groups.length === 0;
  const checks: HitChecks = {
    strong: unconstrained ? terms.flatMap((term, position) => (term.weak ? [] : [position])) : [],
    required: query.required.map(({ term }) => at(term)),
    phrases: phrases.map(phraseAt),
    groups: query.groups.map((group, g) =>
      group.alternatives.map((alternative, a) => ({ terms: alternative.terms.map(({ term }) => at(term)), phrases: groupPhrases[g]![a]!.map(phraseAt) })),
    ),
  };
  const hasPositivePhrases = phrases.length > 0 || groupPhrases.some((group) => group.some((alternative) => alternative.length > 0));
  return { terms, checks, phrases, hasPositivePhrases };
}

/** Null when the query excludes nothing. Excluded words match exactly (or by `word*`). */
export function planExclusion(query: ParsedQuery, excludedPhrases: readonly PhraseCheck[]): ExclusionPlan | null {
  const lookups = new Map<string, QueryTerm>();
  for (const term of query.excluded) lookups.set(term.term, term);
  for (const phrase of excludedPhrases) {
    for (const candidate of phrase.candidates) {
      const known = lookups.get(candidate.term);
      lookups.set(candidate.term, { term: candidate.term, prefix: candidate.prefix || (known?.prefix ?? false), weak: false, match: "exact" });
    }
  }
  if (lookups.size === 0) return null;
  const terms = [...lookups.values()];
  const positions = new Map(terms.map((term, position) => [term.term, position]));
  return {
    terms,
    excludedTerms: query.excluded.map(({ term }) => positions.get(term)!),
    phrases: excludedPhrases.map((phrase) => ({ phrase, terms: phrase.candidates.map(({ term }) => positions.get(term)!) })),
  };
}

// Plain loops, no closures: these run once per matched note, thousands of times a query.
export function passesChecks(evaluation: Evaluation, i: number, checks: HitChecks, filter: Uint8Array | undefined): boolean {
  if (checks.strong.length > 0) {
    let any = false;
    for (const term of checks.strong) if (matchedTerm(evaluation, i, term)) any = true;
    if (!any) return false;
  }
  for (const term of checks.required) if (!matchedTerm(evaluation, i, term)) return false;
  for (const plan of checks.phrases) if (!mayHavePhrase(evaluation, i, plan, filter)) return false;
  for (const alternatives of checks.groups) {
    let satisfied = false;
    for (const alternative of alternatives) {
      let all = true;
      for (const term of alternative.terms) if (!matchedTerm(evaluation, i, term)) all = false;
      for (const plan of alternative.phrases) if (all && !mayHavePhrase(evaluation, i, plan, filter)) all = false;
      if (all) {
        satisfied = true;
        break;
      }
    }
    if (!satisfied) return false;
  }
  return true;
}

/** The note holds every term the phrase is sure to be indexed with, and its filter every pair. */
export function mayHavePhrase(evaluation: Evaluation, i: number, plan: PhrasePositions, filter: Uint8Array | undefined): boolean {
  for (const term of plan.terms) if (!matchedTerm(evaluation, i, term)) return false;
  return !filter || mayHoldPairs(filter, plan.phrase.pairs);
}

// The query language of note_search (SPEC §7). Agents write short natural-language queries, so plain
// words are alternatives that add up (BM25 over every word; notes matching more words rank higher),
// not a strict AND that would come back empty whenever one word is missing from the vault. Operators
// narrow that down when asked for. A malformed query is refused with a message saying how to write it.
import { invalid, lexQuery, type Chain, type Operand } from "./query-lexer";
import { containsCjk, isStopWord, tokenize } from "./tokenizer";

/**
 * How far a word may reach beyond itself (expansion.ts): `exact` (a quoted word, an exclusion),
 * `stem` (+word, AND: its inflections too), `loose` (a plain word: inflections, and when the vault
 * lacks the word, longer words it begins and near spellings).
 */
export type TermMatch = "exact" | "stem" | "loose";

/** One index term to look up. */
export interface QueryTerm {
  /** The term as the index stores it (tokenizer output). */
  term: string;
  /** Written `word*`: every index term that starts with `term` counts as the word. */
  prefix: boolean;
  /** A stop word or lone kana: it counts little (ranking.ts) and alone makes no hit. */
  weak: boolean;
  match: TermMatch;
}

/** One way to satisfy a group: every term matched and every phrase present. */
export interface QueryAlternative {
  terms: QueryTerm[];
  phrases: string[][];
}

/** `a AND b OR c`: a note must satisfy at least one alternative (AND binds tighter than OR). */
export interface QueryGroup {
  alternatives: QueryAlternative[];
}

/**
 * A parsed query. A note is a hit when it matches at least one positive term (optional, required,
 * phrase or group term), every required term, every phrase, at least one alternative of every group,
 * and no excluded term or phrase. Phrases are word sequences as `wordSequence` produces them (CJK
 * runs whole), checked against the note's text. At least one positive part is always present.
 */
export interface ParsedQuery {
  /** Plain words: each contributes to the score, none is required. */
  terms: QueryTerm[];
  /** `+word`, words joined by AND, and quoted single words. */
  required: QueryTerm[];
  /** `-word`, `NOT word`. Exact unless written with `*`. */
  excluded: QueryTerm[];
  /** `"exact phrase"` (required), `+"…"`, and `+multi-part-word`. */
  phrases: string[][];
  /** `-"a phrase"`, `NOT "a phrase"`, `-multi-part-word`. */
  excludedPhrases: string[][];
  /** OR chains that involve AND or a phrase; a plain `a OR b` is just optional words. */
  groups: QueryGroup[];
}

export const MAX_QUERY_LENGTH = 1000;
const LONE_HIRAGANA = /^\p{scx=Hira}$/u;
const DIGITS_ONLY = /^\p{N}+$/u;

export function parseQuery(input: string): ParsedQuery {
  if (input.length > MAX_QUERY_LENGTH) {
    throw invalid(
      "too_long",
      `The query is ${input.length} characters long (at most ${MAX_QUERY_LENGTH}): keep the few words that matter most.`,
    );
  }
  const builder = new QueryBuilder();
  for (const chain of lexQuery(input)) builder.addChain(chain);
  return builder.finish();
}

function isWeak(term: string): boolean {
  return isStopWord(term) || LONE_HIRAGANA.test(term);
}

function looseTerm(term: string, explicitPrefix: boolean): QueryTerm {
  const weak = isWeak(term);
  if (explicitPrefix) return { term, prefix: true, weak, match: "loose" };
  return { term, prefix: false, weak, match: weak || DIGITS_ONLY.test(term) ? "exact" : "loose" };
}

function strictTerm(term: string, explicitPrefix: boolean): QueryTerm {
  const weak = isWeak(term);
  return { term, prefix: explicitPrefix, weak, match: weak ? "exact" : "stem" };
}

function exactTerm(term: string, explicitPrefix: boolean): QueryTerm {
  return { term, prefix: explicitPrefix, weak: isWeak(term), match: "exact" };
}

const REACH: Readonly<Record<TermMatch, number>> = { exact: 0, stem: 1, loose: 2 };

/** The same word written twice reaches as far as the farther-reaching of the two. */
export function mergeTerm(known: QueryTerm, term: QueryTerm): QueryTerm {
  return {
    term: term.term,
    prefix: known.prefix || term.prefix,
    weak: known.weak && term.weak,
    match: REACH[known.match] >= REACH[term.match] ? known.match : term.match,
  };
}

/** A lone word outside CJK is a term; anything else (e-mail, 東京で, a quoted phrase) is a sequence. */
function singleWord(operand: Operand): string | null {
  const only = operand.words.length === 1 ? operand.words[0]! : null;
  return only !== null && !containsCjk(only) ? only : null;
}

type Positive = { kind: "term"; term: QueryTerm } | { kind: "phrase"; words: string[] };

function strictPositive(operand: Operand): Positive {
  const word = singleWord(operand);
  if (word === null) return { kind: "phrase", words: operand.words };
  return { kind: "term", term: operand.quoted ? exactTerm(word, false) : strictTerm(word, operand.prefix) };
}

class QueryBuilder {
  private readonly optional: QueryTerm[] = [];
  private readonly required: QueryTerm[] = [];
  private readonly excluded: QueryTerm[] = [];
  private readonly phrases: string[][] = [];
  private readonly excludedPhrases: string[][] = [];
  private readonly groups: QueryGroup[] = [];

  addChain(chain: Chain): void {
    if (chain.operators.length === 0) {
      this.addStandalone(chain.operands[0]!);
      return;
    }
    if (!chain.operators.includes("OR")) {
      for (const operand of chain.operands) {
        if (operand.modifier === "-") this.addExcluded(operand);
        else this.addPositive(strictPositive(operand));
      }
      return;
    }
    for (const operand of chain.operands) {
      if (operand.modifier === "-") {
        throw invalid(
          "exclusion_in_or",
          `An exclusion cannot be an alternative of OR: write 'a OR b -c' to leave notes with c out (here: ${operand.source}).`,
        );
      }
      if (operand.modifier === "+") {
        throw invalid(
          "required_in_or",
          `"+" cannot mark an alternative of OR: write 'a OR b' (either one) or '+a b' (a required) (here: ${operand.source}).`,
        );
      }
    }
    const conjunctions = splitByOr(chain);
    const plainDisjunction = conjunctions.every((conjunction) => conjunction.length === 1 && !conjunction[0]!.quoted);
    if (plainDisjunction) {
      for (const operand of chain.operands) this.addLoose(operand);
      return;
    }
    this.groups.push({
      alternatives: conjunctions.map((conjunction) => {
        const alternative: QueryAlternative = { terms: [], phrases: [] };
        for (const operand of conjunction) {
          const positive = strictPositive(operand);
          if (positive.kind === "term") alternative.terms.push(positive.term);
          else alternative.phrases.push(positive.words);
        }
        return alternative;
      }),
    });
  }

  private addStandalone(operand: Operand): void {
    if (operand.modifier === "-") this.addExcluded(operand);
    else if (operand.modifier === "+" || operand.quoted) this.addPositive(strictPositive(operand));
    else this.addLoose(operand);
  }

  private addLoose(operand: Operand): void {
    const terms = operand.words.length === 1 && !containsCjk(operand.words[0]!) ? operand.words : tokenize(operand.source);
    terms.forEach((term, index) => this.optional.push(looseTerm(term, operand.prefix && index === terms.length - 1)));
  }

  private addPositive(positive: Positive): void {
    if (positive.kind === "term") this.required.push(positive.term);
    else this.phrases.push(positive.words);
  }

  private addExcluded(operand: Operand): void {
    const word = singleWord(operand);
    if (word === null) this.excludedPhrases.push(operand.words);
    else this.excluded.push(exactTerm(word, operand.prefix));
  }

  finish(): ParsedQuery {
    const required = mergeTerms(this.required);
    const requiredNames = new Set(required.map(({ term }) => term));
    const query: ParsedQuery = {
      terms: mergeTerms(this.optional.filter(({ term }) => !requiredNames.has(term))),
      required,
      excluded: mergeTerms(this.excluded),
      phrases: uniquePhrases(this.phrases),
      excludedPhrases: uniquePhrases(this.excludedPhrases),
      groups: this.groups,
    };
    this.rejectContradictions(query);
    const positives = query.terms.length + query.required.length + query.phrases.length + query.groups.length;
    if (positives > 0) return query;
    if (query.excluded.length > 0 || query.excludedPhrases.length > 0) {
      throw invalid(
        "only_exclusions",
        "The query only excludes (-word, NOT word): add at least one word to search for, e.g. 'sync -mobile'; to list notes without searching, call note_search without a query.",
      );
    }
    throw invalid(
      "no_searchable_words",
      "The query has no searchable words (punctuation, numbers over 6 digits and hashes are not indexed): search for words that appear in the notes, or use vault_grep to find exact characters.",
    );
  }

  private rejectContradictions(query: ParsedQuery): void {
    const positive = new Set<string>();
    for (const { term } of [...query.terms, ...query.required]) positive.add(term);
    for (const group of query.groups) for (const alternative of group.alternatives) for (const { term } of alternative.terms) positive.add(term);
    const clash = query.excluded.find(({ term }) => positive.has(term));
    if (clash) {
      throw invalid(
        "contradiction",
        `"${clash.term}" is both searched for and excluded: keep either "${clash.term}" or "-${clash.term}".`,
      );
    }
  }
}

function splitByOr(chain: Chain): Operand[][] {
  const conjunctions: Operand[][] = [[chain.operands[0]!]];
  chain.operators.forEach((operator, index) => {
    const operand = chain.operands[index + 1]!;
    if (operator === "OR") conjunctions.push([operand]);
    else conjunctions[conjunctions.length - 1]!.push(operand);
  });
  return conjunctions;
}

function mergeTerms(terms: readonly QueryTerm[]): QueryTerm[] {
  const byTerm = new Map<string, QueryTerm>();
  for (const term of terms) {
    const known = byTerm.get(term.term);
    byTerm.set(term.term, known ? mergeTerm(known, term) : term);
  }
  return [...byTerm.values()];
}

function uniquePhrases(phrases: readonly string[][]): string[][] {
  const seen = new Set<string>();
  return phrases.filter((phrase) => {
    const key = phrase.join("\u0000");
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

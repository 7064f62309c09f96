// Phrases are checked on a note's text, never in the index (which keeps no positions). The index only
// narrows the notes worth reading to those holding every term the phrase is sure to have been indexed with.
import { containsCjk, hanBigrams, tokenize, wordSequence } from "./tokenizer";

export interface CandidateTerm {
  term: string;
  prefix: boolean;
}

/**
 * Terms a note containing the phrase must have in the index. A CJK run inside a phrase can sit inside
 * a longer segment of the note, so only its Han bigrams are certain; a phrase with nothing certain
 * (pure kana or Hangul) falls back to prefixes of its own segments, which finds the usual cases.
 */
export function phraseCandidateTerms(phrase: readonly string[]): CandidateTerm[] {
  const certain: CandidateTerm[] = [];
  const fallback: CandidateTerm[] = [];
  for (const word of phrase) {
    if (!containsCjk(word)) {
      certain.push({ term: word, prefix: false });
      continue;
    }
    for (const bigram of hanBigrams(word)) certain.push({ term: bigram, prefix: false });
    for (const segment of tokenize(word)) fallback.push({ term: segment, prefix: true });
  }
  return dedupe(certain.length > 0 ? certain : fallback);
}

function dedupe(terms: CandidateTerm[]): CandidateTerm[] {
  const seen = new Set<string>();
  return terms.filter(({ term }) => (seen.has(term) ? false : (seen.add(term), true)));
}

/**
 * True when `words` (a `wordSequence`) contains the phrase as consecutive words. A CJK word of the
 * phrase may be part of a longer CJK run: the first may end one, the last may start one, a lone one
 * may sit anywhere inside one.
 */
export function containsPhrase(words: readonly string[], phrase: readonly string[]): boolean {
  const length = phrase.length;
  if (length === 0) return false;
  const first = phrase[0]!;
  const last = phrase[length - 1]!;
  const firstIsCjk = containsCjk(first);
  const lastIsCjk = containsCjk(last);
  for (let start = 0; start + length <= words.length; start++) {
    const head = words[start]!;
    if (length === 1) {
      if (firstIsCjk ? head.includes(first) : head === first) return true;
      continue;
    }
    if (!(firstIsCjk ? head.endsWith(first) : head === first)) continue;
    let inner = 1;
    while (inner < length - 1 && words[start + inner] === phrase[inner]) inner++;
    if (inner < length - 1) continue;
    const tail = words[start + length - 1]!;
    if (lastIsCjk ? tail.startsWith(last) : tail === last) return true;
  }
  return false;
}

/** True when the text holds the phrase; `wordSequence` of a text can be passed instead to reuse it. */
export function textContainsPhrase(text: string, phrase: readonly string[]): boolean {
  return containsPhrase(wordSequence(text), phrase);
}

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

/** True when the text holds the phrase. */
export function textContainsPhrase(text: string, phrase: readonly string[]): boolean {
  return new PhraseText(text).contains(phrase);
}

const NON_ASCII = /[\u0080-\uffff]/;
const ASCII_WORD = /^[a-z0-9]+$/;
/** Extra runs of letters and digits taken on each side: tokens the index skips (long numbers, hashes). */
const WINDOW_SLACK_RUNS = 3;

function isAsciiAlphanumeric(code: number): boolean {
  return (code >= 97 && code <= 122) || (code >= 65 && code <= 90) || (code >= 48 && code <= 57);
}

/**
 * A note's text, asked whether it holds phrases. Tokenizing a whole note to check one phrase is most of
 * a phrase query's cost, so for ASCII text and phrases it only tokenizes a few words around each
 * occurrence of the phrase's longest word (lower-casing is then exactly the index's folding); other
 * texts get the whole word sequence, computed once.
 */
export class PhraseText {
  private readonly text: string;
  private lower: string | null = null;
  private words: string[] | null = null;
  private readonly ascii: boolean;

  constructor(text: string) {
    this.text = text;
    this.ascii = !NON_ASCII.test(text);
  }

  contains(phrase: readonly string[]): boolean {
    if (phrase.length === 0) return false;
    if (!this.ascii || !phrase.every((word) => ASCII_WORD.test(word))) {
      this.words ??= wordSequence(this.text);
      return containsPhrase(this.words, phrase);
    }
    const lower = (this.lower ??= this.text.toLowerCase());
    let anchor = 0;
    phrase.forEach((word, index) => {
      if (word.length > phrase[anchor]!.length) anchor = index;
    });
    const word = phrase[anchor]!;
    for (let at = lower.indexOf(word); at >= 0; at = lower.indexOf(word, at + 1)) {
      if (at > 0 && isAsciiAlphanumeric(lower.charCodeAt(at - 1))) continue;
      const end = at + word.length;
      if (end < lower.length && isAsciiAlphanumeric(lower.charCodeAt(end))) continue;
      const start = this.runsBefore(at, anchor + WINDOW_SLACK_RUNS);
      const stop = this.runsAfter(end, phrase.length - anchor - 1 + WINDOW_SLACK_RUNS);
      // Three more characters: whether a word is a URL scheme ("https://") depends on what follows it.
      if (containsPhrase(wordSequence(this.text.slice(start, Math.min(this.text.length, stop + 3))), phrase)) return true;
    }
    return false;
  }

  /** The start of the `runs`-th run of letters and digits before `at` (or the text's start). */
  private runsBefore(at: number, runs: number): number {
    const text = this.text;
    let position = at;
    for (let run = 0; run < runs && position > 0; run++) {
      while (position > 0 && !isAsciiAlphanumeric(text.charCodeAt(position - 1))) position -= 1;
      while (position > 0 && isAsciiAlphanumeric(text.charCodeAt(position - 1))) position -= 1;
    }
    return position;
  }

  /** The end of the `runs`-th run of letters and digits after `at` (or the text's end). */
  private runsAfter(at: number, runs: number): number {
    const text = this.text;
    let position = at;
    for (let run = 0; run < runs && position < text.length; run++) {
      while (position < text.length && !isAsciiAlphanumeric(text.charCodeAt(position))) position += 1;
      while (position < text.length && isAsciiAlphanumeric(text.charCodeAt(position))) position += 1;
    }
    return position;
  }
}

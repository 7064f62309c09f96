// Phrases are checked on a note's text, never in the index (which keeps no positions). The index only
// narrows the notes worth reading to those holding every term the phrase is sure to have been indexed with.
import { containsCjk, hanBigrams, tokenize, wordSequence, wordSequenceWithStarts } from "./tokenizer";

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

function isRunCharacter(code: number): boolean {
  return code >= 0x80 || isAsciiAlphanumeric(code);
}

/**
 * A note's text, asked whether it holds phrases. Tokenizing a whole note to check one phrase is most of
 * a phrase query's cost, so for a phrase of ASCII words it only tokenizes a few words around each place
 * the phrase's longest word can be: where it is spelled out (in any case), and, in a text beyond ASCII,
 * where a run with other characters folds to it (Größe for "grosse"). Other phrases get the whole word
 * sequence, computed once.
 */
export class PhraseText {
  private readonly text: string;
  private lower: string | null = null;
  private words: string[] | null = null;
  private readonly ascii: boolean;
  /** Where runs beyond ASCII start, with their terms; found once per text. */
  private foreignRuns: Array<{ at: number; terms: string[] }> | null = null;

  constructor(text: string) {
    this.text = text;
    this.ascii = !NON_ASCII.test(text);
  }

  contains(phrase: readonly string[]): boolean {
    if (phrase.length === 0) return false;
    const lower = (this.lower ??= this.text.toLowerCase());
    // Lower-casing a few characters beyond ASCII changes the text's length: offsets would not match.
    if (!phrase.every((word) => ASCII_WORD.test(word)) || lower.length !== this.text.length) {
      this.words ??= wordSequence(this.text);
      return containsPhrase(this.words, phrase);
    }
    // Most phrases are written as typed, words a space apart: found that way, one window decides.
    if (phrase.length > 1) {
      const written = phrase.join(" ");
      for (let at = lower.indexOf(written); at >= 0; at = lower.indexOf(written, at + 1)) {
        if (at > 0 && isAsciiAlphanumeric(lower.charCodeAt(at - 1))) continue;
        const end = at + phrase[0]!.length;
        if (this.windowHolds(at, end, phrase, 0)) return true;
      }
    }
    let anchor = 0;
    phrase.forEach((word, index) => {
      if (word.length > phrase[anchor]!.length) anchor = index;
    });
    const word = phrase[anchor]!;
    for (let at = lower.indexOf(word); at >= 0; at = lower.indexOf(word, at + 1)) {
      if (at > 0 && isAsciiAlphanumeric(lower.charCodeAt(at - 1))) continue;
      const end = at + word.length;
      if (end < lower.length && isAsciiAlphanumeric(lower.charCodeAt(end))) continue;
      if (this.windowHolds(at, end, phrase, anchor)) return true;
    }
    if (this.ascii) return false;
    for (const run of this.runsBeyondAscii()) {
      if (run.terms.includes(word) && this.windowHolds(run.at, run.at + 1, phrase, anchor)) return true;
    }
    return false;
  }

  /**
   * Whether the phrase is in the words around the run at `at`: enough of them on each side for the
   * phrase's other words, the window widened while tokens the index drops (long numbers, hashes, URL
   * schemes) leave too few.
   */
  private windowHolds(at: number, end: number, phrase: readonly string[], anchor: number): boolean {
    const text = this.text;
    const after = phrase.length - anchor - 1;
    for (let slack = WINDOW_SLACK_RUNS; ; slack *= 2) {
      const start = this.runsBefore(at, anchor + slack);
      let stop = this.runsAfter(end, after + slack);
      // Up to three characters more, never into the next run: whether the last word is a URL scheme
      // ("https://") depends on what follows it, and a cut-off piece of the next run would read as a word.
      const limit = Math.min(text.length, stop + 3);
      while (stop < limit && !isRunCharacter(text.charCodeAt(stop))) stop += 1;
      const { words, starts } = wordSequenceWithStarts(text.slice(start, stop));
      let here = 0;
      while (here < words.length && starts[here]! < at - start) here += 1;
      const enoughBefore = start === 0 || here >= anchor;
      const enoughAfter = stop >= text.length || words.length - here - 1 >= after;
      if (enoughBefore && enoughAfter) return containsPhrase(words, phrase);
    }
  }

  private runsBeyondAscii(): Array<{ at: number; terms: string[] }> {
    if (this.foreignRuns) return this.foreignRuns;
    const text = this.text;
    const runs: Array<{ at: number; terms: string[] }> = [];
    for (let at = 0; at < text.length; at++) {
      if (text.charCodeAt(at) < 0x80) continue;
      let start = at;
      while (start > 0 && isRunCharacter(text.charCodeAt(start - 1))) start -= 1;
      let end = at + 1;
      while (end < text.length && isRunCharacter(text.charCodeAt(end))) end += 1;
      // The span holds whole runs of the tokenizer's (bounded by ASCII that is no letter or digit).
      runs.push({ at: start, terms: tokenize(text.slice(start, end)) });
      at = end;
    }
    return (this.foreignRuns = runs);
  }

  /**
   * The start of the `runs`-th run before `at` (or the text's start). Runs are of ASCII letters and
   * digits and any character beyond ASCII: a word like Größe is one run, never cut in two.
   */
  private runsBefore(at: number, runs: number): number {
    const text = this.text;
    let position = at;
    for (let run = 0; run < runs && position > 0; run++) {
      while (position > 0 && !isRunCharacter(text.charCodeAt(position - 1))) position -= 1;
      while (position > 0 && isRunCharacter(text.charCodeAt(position - 1))) position -= 1;
    }
    return position;
  }

  /** The end of the `runs`-th run after `at` (or the text's end). */
  private runsAfter(at: number, runs: number): number {
    const text = this.text;
    let position = at;
    for (let run = 0; run < runs && position < text.length; run++) {
      while (position < text.length && !isRunCharacter(text.charCodeAt(position))) position += 1;
      while (position < text.length && isRunCharacter(text.charCodeAt(position))) position += 1;
    }
    return position;
  }
}

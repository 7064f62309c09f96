// One tokenizer for indexing, querying, phrase checks and snippets, so that the same word always
// becomes the same term. Latin-like scripts are folded (über → uber, Größe → grosse) because agents
// and keyboards drop diacritics; CJK text has no spaces, so only its runs go through Intl.Segmenter
// (costly, and pointless elsewhere) and Han runs also yield character bigrams, which match inside
// longer segments (東京 inside 東京タワー) whatever the segmenter decided in context.
import { TERM_HASH_START, continueHash, termHash, type TermTable } from "./term-table";

export { STOP_WORDS, isStopWord } from "./stop-words";

const MAX_TERM_LENGTH = 40;
const MAX_NUMBER_DIGITS = 6;
const MIN_HASH_LENGTH = 16;

const WORD_RUN_AT = /[\p{L}\p{N}\p{M}]+/uy;
const NON_ASCII = /[\u0080-\uffff]/;
const CJK_CHAR = /[\p{scx=Han}\p{scx=Hira}\p{scx=Kana}\p{scx=Hang}]/u;
const CJK_OR_OTHER_PIECE =
  /[\p{scx=Han}\p{scx=Hira}\p{scx=Kana}\p{scx=Hang}]+|[^\p{scx=Han}\p{scx=Hira}\p{scx=Kana}\p{scx=Hang}]+/gu;
const CJK_ONLY = /^[\p{scx=Han}\p{scx=Hira}\p{scx=Kana}\p{scx=Hang}]+$/u;
const HAN_RUN = /\p{scx=Han}+/gu;
const COMBINING_MARK = /\p{M}/gu;
const NOT_LETTER_OR_DIGIT = /[^\p{L}\p{N}]+/u;
const DIGITS_ONLY = /^[0-9]+$/;
const HEX_ONLY = /^[0-9a-f]+$/;
const HAS_DIGIT = /[0-9]/;

// Letters that NFKD leaves whole although readers treat them as plain Latin letters.
const LETTER_SPELLINGS: Readonly<Record<string, string>> = {
  ß: "ss",
  æ: "ae",
  ø: "o",
  œ: "oe",
  ł: "l",
  đ: "d",
  ð: "d",
  þ: "th",
  ı: "i",
  ħ: "h",
  ŧ: "t",
};
const SPELLED_LETTER = /[ßæøœłđðþıħŧ]/g;

export function containsCjk(text: string): boolean {
  return NON_ASCII.test(text) && CJK_CHAR.test(text);
}

/**
 * Visits every word-like piece of `text` with its offset: runs of letters, digits and marks, split
 * where CJK and non-CJK characters meet. URL schemes (`https://`, `mailto:`) and a `www.` host
 * prefix are skipped, being in nearly every link and meaning nothing. Starts at `from` (which should
 * be a word boundary); stops early when `visit` returns false.
 */
export function forEachWordPiece(
  text: string,
  visit: (piece: string, start: number, cjk: boolean) => unknown,
  from = 0,
): void {
  const length = text.length;
  let at = from;
  let going = true;
  const visitPiece = (piece: string, start: number, cjk: boolean): void => {
    if (going && visit(piece, start, cjk) === false) going = false;
  };
  while (at < length && going) {
    if (!findRun(text, at)) {
      at += 1;
      continue;
    }
    visitRun(text, text.slice(at, RUN.end), at, visitPiece);
    at = RUN.end;
  }
}

/** The run `findRun` found last: where it ends, and whether it is plain ASCII letters and digits. */
const RUN = { end: 0, ascii: false };

/**
 * Whether a run of letters, digits and marks starts at `at` (both word scanners find runs alike); its
 * end goes to RUN. Most notes are mostly ASCII: scanning char codes is about twice as fast as a
 * Unicode regex, which only a run meeting a character beyond ASCII needs.
 */
function findRun(text: string, at: number): boolean {
  const code = text.charCodeAt(at);
  if (code < 0x80 && !isAsciiLetterOrDigit(code)) return false;
  const length = text.length;
  let end = at;
  if (code < 0x80) {
    end += 1;
    while (end < length && isAsciiLetterOrDigit(text.charCodeAt(end))) end += 1;
  }
  if (end === at || (end < length && text.charCodeAt(end) >= 0x80)) {
    WORD_RUN_AT.lastIndex = at;
    const match = WORD_RUN_AT.exec(text);
    if (match === null) return false;
    RUN.end = at + match[0].length;
    RUN.ascii = false;
    return true;
  }
  RUN.end = end;
  RUN.ascii = true;
  return true;
}

function isAsciiLetterOrDigit(code: number): boolean {
  return (code >= 97 && code <= 122) || (code >= 65 && code <= 90) || (code >= 48 && code <= 57);
}

function visitRun(text: string, run: string, start: number, visit: (piece: string, start: number, cjk: boolean) => void): void {
  if (isUrlJunk(text, run, start)) return;
  if (!containsCjk(run)) {
    visit(run, start, false);
    return;
  }
  for (const piece of run.matchAll(CJK_OR_OTHER_PIECE)) {
    visit(piece[0], start + piece.index, CJK_CHAR.test(piece[0]));
  }
}

function isUrlJunk(text: string, run: string, start: number): boolean {
  const end = start + run.length;
  if (text.startsWith("://", end)) return true;
  if (run.length === 6 && text[end] === ":" && run.toLowerCase() === "mailto") return true;
  return run.length === 3 && text[end] === "." && run.toLowerCase() === "www";
}

/** The index terms of a text, in order, duplicates kept (they are term frequencies). */
export function tokenize(text: string): string[] {
  const terms: string[] = [];
  collectTerms(text, terms, null);
  return terms;
}

/**
 * `tokenize` and `wordSequence` of one text in a single pass: indexing needs both, and tokenizing is
 * most of the cost of a cold build.
 */
export function tokenizeWithWords(text: string): { terms: string[]; words: string[] } {
  const terms: string[] = [];
  const words: string[] = [];
  collectTerms(text, terms, words);
  return { terms, words };
}

// One visitor for both, so the hot call inside forEachWordPiece stays monomorphic.
function collectTerms(text: string, terms: string[], words: string[] | null): void {
  forEachWordPiece(text, (piece, _start, cjk) => {
    if (cjk) {
      pushCjkTerms(piece, terms);
      if (words) words.push(piece.normalize("NFKC"));
      return;
    }
    const before = terms.length;
    pushWordTerms(piece, terms);
    if (words) for (let i = before; i < terms.length; i++) words.push(terms[i]!);
  });
}

/**
 * A text's terms as numbers of a TermTable, in order, and the hashes (termHash) of its words as
 * `wordSequence` gives them, filled by `scanTerms`; the arrays are reused from text to text.
 */
export class TermScan {
  terms = new Int32Array(1024);
  termCount = 0;
  words = new Int32Array(1024);
  wordCount = 0;

  clear(): void {
    this.termCount = 0;
    this.wordCount = 0;
  }

  pushTerm(number: number): void {
    if (this.termCount === this.terms.length) this.terms = grown(this.terms);
    this.terms[this.termCount++] = number;
  }

  pushWord(hash: number): void {
    if (this.wordCount === this.words.length) this.words = grown(this.words);
    this.words[this.wordCount++] = hash;
  }
}

function grown(array: Int32Array): Int32Array<ArrayBuffer> {
  const bigger = new Int32Array(array.length * 2);
  bigger.set(array);
  return bigger;
}

/**
 * `tokenizeWithWords` of a text into `scan`, terms numbered by `table` and words hashed, without
 * making a string per word: a plain ASCII word (most words of most notes) is lower-cased, checked and
 * hashed as its characters are scanned, and looked up by that hash. Anything else takes the same
 * steps as `tokenize`. A test holds the two to the same terms.
 */
export function scanTerms(text: string, table: TermTable, scan: TermScan): void {
  scan.clear();
  const length = text.length;
  let at = 0;
  while (at < length) {
    if (!findRun(text, at)) {
      at += 1;
      continue;
    }
    const end = RUN.end;
    if (RUN.ascii) scanAsciiWord(text, at, end, table, scan);
    else scanRun(text, text.slice(at, end), at, table, scan);
    at = end;
  }
}

/** An ASCII word: `visitRun` and `pushWordTerms` for it, character by character. */
function scanAsciiWord(text: string, start: number, end: number, table: TermTable, scan: TermScan): void {
  const length = end - start;
  const next = text.charCodeAt(end);
  // isUrlJunk
  if (next === 0x3a && text.startsWith("://", end)) return;
  if ((length === 6 && next === 0x3a) || (length === 3 && next === 0x2e)) {
    const lower = text.slice(start, end).toLowerCase();
    if (lower === "mailto" || lower === "www") return;
  }
  let hash = TERM_HASH_START;
  let digits = true;
  let hex = true;
  let hasDigit = false;
  for (let i = start; i < end; i++) {
    let code = text.charCodeAt(i);
    if (code <= 57) hasDigit = true;
    else {
      if (code <= 90) code += 32;
      digits = false;
      if (code > 102) hex = false;
    }
    hash = continueHash(hash, code);
  }
  // isIndexable
  if (length > MAX_TERM_LENGTH || (length > MAX_NUMBER_DIGITS && digits) || (length >= MIN_HASH_LENGTH && hex && hasDigit)) return;
  scan.pushTerm(table.numberAscii(text, start, end, hash));
  scan.pushWord(hash);
}

/** Any other run, through the string functions `collectTerms` uses. */
function scanRun(text: string, run: string, start: number, table: TermTable, scan: TermScan): void {
  if (isUrlJunk(text, run, start)) return;
  const pieces = containsCjk(run) ? [...run.matchAll(CJK_OR_OTHER_PIECE)].map((piece) => piece[0]) : [run];
  const terms: string[] = [];
  for (const piece of pieces) {
    terms.length = 0;
    if (CJK_CHAR.test(piece)) {
      pushCjkTerms(piece, terms);
      for (const term of terms) scan.pushTerm(table.number(term));
      scan.pushWord(termHash(piece.normalize("NFKC")));
    } else {
      pushWordTerms(piece, terms);
      for (const term of terms) {
        scan.pushTerm(table.number(term));
        scan.pushWord(termHash(term));
      }
    }
  }
}

/**
 * The words of a text in reading order, for phrase checks: words as `tokenize` normalises them, each
 * CJK run kept whole (no segments, no bigrams) so a CJK phrase can be matched as a substring.
 */
export function wordSequence(text: string): string[] {
  return wordSequenceWithStarts(text).words;
}

/** `wordSequence`, with the offset in `text` of the piece each word came from. */
export function wordSequenceWithStarts(text: string): { words: string[]; starts: number[] } {
  const words: string[] = [];
  const starts: number[] = [];
  forEachWordPiece(text, (piece, start, cjk) => {
    if (cjk) words.push(piece.normalize("NFKC"));
    else pushWordTerms(piece, words);
    while (starts.length < words.length) starts.push(start);
  });
  return { words, starts };
}

/**
 * The index form of one word: folded and lower-cased (CJK: width-normalised), or null when it is not
 * a single indexable word (empty, punctuation, mixed CJK and other letters, over 40 characters, a
 * number over 6 digits, a hash).
 */
export function normalizeTerm(term: string): string | null {
  const cjk = containsCjk(term);
  if (cjk && !CJK_ONLY.test(term)) return null;
  const normalized = cjk ? term.normalize("NFKC") : foldWord(term);
  if (normalized.length === 0 || NOT_LETTER_OR_DIGIT.test(normalized)) return null;
  return isIndexable(normalized) ? normalized : null;
}

/**
 * `normalizeTerm` of a word piece `forEachWordPiece` found (a run of letters, digits and marks), with
 * a fast path for plain ASCII: marking query words in snippets normalises every word around them.
 */
export function pieceTerm(piece: string): string | null {
  if (NON_ASCII.test(piece)) return normalizeTerm(piece);
  const term = piece.toLowerCase();
  return isIndexable(term) ? term : null;
}

function pushWordTerms(piece: string, into: string[]): void {
  if (!NON_ASCII.test(piece)) {
    const term = piece.toLowerCase();
    if (isIndexable(term)) into.push(term);
    return;
  }
  const folded = foldWord(piece);
  if (!NOT_LETTER_OR_DIGIT.test(folded)) {
    if (folded.length > 0 && isIndexable(folded)) into.push(folded);
    return;
  }
  // Compatibility forms can unfold into several words (½ → 1⁄2).
  for (const part of folded.split(NOT_LETTER_OR_DIGIT)) {
    if (part.length > 0 && isIndexable(part)) into.push(part);
  }
}

function foldWord(word: string): string {
  if (!NON_ASCII.test(word)) return word.toLowerCase();
  let folded = word.normalize("NFKD").replace(COMBINING_MARK, dropDiacritic).toLowerCase();
  folded = folded.replace(SPELLED_LETTER, (letter) => LETTER_SPELLINGS[letter] ?? letter);
  return NON_ASCII.test(folded) ? folded.normalize("NFC") : folded;
}

// Latin, Greek and Cyrillic diacritics only: marks of Indic or other scripts carry vowels, not accents.
function dropDiacritic(mark: string): string {
  const code = mark.charCodeAt(0);
  const diacritic =
    (code >= 0x0300 && code <= 0x036f) ||
    (code >= 0x1ab0 && code <= 0x1aff) ||
    (code >= 0x1dc0 && code <= 0x1dff) ||
    (code >= 0x20d0 && code <= 0x20ff) ||
    (code >= 0xfe20 && code <= 0xfe2f);
  return diacritic ? "" : mark;
}

function isIndexable(term: string): boolean {
  if (term.length > MAX_TERM_LENGTH && codePointLength(term) > MAX_TERM_LENGTH) return false;
  if (term.length > MAX_NUMBER_DIGITS && DIGITS_ONLY.test(term)) return false;
  return !(term.length >= MIN_HASH_LENGTH && HEX_ONLY.test(term) && HAS_DIGIT.test(term));
}

function codePointLength(text: string): number {
  let length = text.length;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code >= 0xdc00 && code <= 0xdfff) length -= 1;
  }
  return length;
}

let segmenter: Intl.Segmenter | null | undefined;

function wordSegmenter(): Intl.Segmenter | null {
  if (segmenter === undefined) {
    segmenter = typeof Intl.Segmenter === "function" ? new Intl.Segmenter("ja", { granularity: "word" }) : null;
  }
  return segmenter;
}

function pushCjkTerms(piece: string, into: string[]): void {
  const run = piece.normalize("NFKC");
  const segmentAt = new Map<number, string>();
  const words = wordSegmenter();
  if (words) {
    for (const segment of words.segment(run)) {
      if (!segment.isWordLike) continue;
      segmentAt.set(segment.index, segment.segment);
      if (isIndexable(segment.segment)) into.push(segment.segment);
    }
  } else if (isIndexable(run)) {
    into.push(run);
  }
  for (const han of run.matchAll(HAN_RUN)) {
    pushHanBigrams(han[0], han.index, segmentAt, into);
  }
}

function pushHanBigrams(han: string, offset: number, segmentAt: ReadonlyMap<number, string>, into: string[]): void {
  const chars = Array.from(han);
  let position = offset;
  for (let i = 0; i + 1 < chars.length; i++) {
    const bigram = chars[i]! + chars[i + 1]!;
    // A segment that is exactly this bigram already counted it once.
    if (segmentAt.get(position) !== bigram) into.push(bigram);
    position += chars[i]!.length;
  }
}

/** Every Han bigram of a text: the terms that any text containing it is sure to have been indexed with. */
export function hanBigrams(text: string): string[] {
  const bigrams: string[] = [];
  for (const han of text.normalize("NFKC").matchAll(HAN_RUN)) {
    const chars = Array.from(han[0]);
    for (let i = 0; i + 1 < chars.length; i++) bigrams.push(chars[i]! + chars[i + 1]!);
  }
  return bigrams;
}
